"""The stories a conversation is made of (language-neutral logic; the words live in text_en / text_zh).

Each story puts one or more episodes into the conversation (a step per session, sessions apart) and asks
questions about them, each labelled with the lines that hold its answer.
"""
from __future__ import annotations

import datetime as dt
from typing import Callable

from .cast import Ask, Cast, Line, Story
from .dates import month_expr, pick_past, recent_expr, resolve

At = Callable[[str], dt.date]


def _recent(c: Cast, at: At, key: str, f: dict, answer: str, clue: str) -> list[Ask]:
    """"What did X buy last week?": only when the line landed close enough to today to say so."""
    when = recent_expr(at(key), c.today, c.lang)
    if when is None:
        return []
    return [Ask("temporal", c.say("q_recent", dict(f, when=when)), answer, {key: clue}, when=when)]


def pets(c: Cast) -> Story:
    f = c.fields(pet=c.pick("pets"), breed=c.pick("breeds"), cat=c.pick("pets"), catkind=c.pick("cats"),
                 **c.text.pronouns(c.rng.choice("fm"), "p"))

    def adopt(day: dt.date) -> list[Line]:
        f["phrase"], f["when"] = pick_past(c.rng, day, c.lang)
        return [c.line("o", "adopt", f, "adopt"), c.line("x", "adopt_react", f), c.line("o", "adopt_more", f)]

    def cat(day: dt.date) -> list[Line]:
        return [c.line("o", "cat", f, "cat"), c.line("x", "cat_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_name", f), f["pet"], {"adopt": f["pet"]}),
                Ask("temporal", c.say("q_when", f), f["when"].isoformat(), {"adopt": f["phrase"]}, "date"),
                Ask("multi-hop", c.say("q_count", f), "2", {"adopt": f["pet"], "cat": f["cat"]}, "count")]
    return Story("pets", [adopt, cat], ask, events=[(c.say("label", f), "adopt", f["pet"])], near=c.near(f))


def job(c: Cast) -> Story:
    f = c.fields(emp1=c.pick("employers"), role1=c.pick("roles"), emp2=c.pick("employers"), role2=c.pick("roles"),
                 nth=c.rng.choice(c.text.NTH))

    def before(day: dt.date) -> list[Line]:
        return [c.line("o", "job1", f, "job1"), c.line("x", "job1_react", f)]

    def change(day: dt.date) -> list[Line]:
        return [c.line("o", "job2", f, "job2"), c.line("x", "job2_react", f), c.line("o", "job2_more", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("temporal", c.say("q_now", f), f["emp2"], {"job2": f["emp2"]}),
                Ask("multi-hop", c.say("q_before", f), f["role1"], {"job1": f["role1"], "job2": f["emp1"]}),
                Ask("temporal", c.say("q_quit", f), at("job2").isoformat(), {"job2": c.text.TODAY}, "date")]
    return Story("job", [before, change], ask, gap=3, near=c.near(f))


def move(c: Cast) -> Story:
    city2, country = c.pick("cities2")
    f = c.fields(city2=city2, country=country, nth=c.rng.choice(c.text.NTH))

    def think(day: dt.date) -> list[Line]:
        return [c.line("o", "think", f, "think"), c.line("x", "think_react", f)]

    def lease(day: dt.date) -> list[Line]:
        return [c.line("o", "lease", f, "lease"), c.line("x", "lease_react", f), c.line("o", "lease_more", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_city", f), city2, {"lease": city2}),
                Ask("open-domain", c.say("q_country", f), country, {"lease": city2}, "world"),
                Ask("multi-hop", c.say("q_before", f), f["city"], {"think": f["city"], "lease": city2})]
    return Story("move", [think, lease], ask, events=[(c.say("label", f), "lease", city2)], near=c.near(f))


def purchase(c: Cast) -> Story:
    item, noun, low, high = c.pick("items")
    f = c.fields(item=item, noun=noun, price=c.text.price(c.rng.randrange(low, high, 5)))

    def buy(day: dt.date) -> list[Line]:
        return [c.line("o", "buy", f, "buy"), c.line("x", "buy_react", f), c.line("o", "buy_more", f)]

    def ask(at: At) -> list[Ask]:
        month = month_expr(at("buy"), c.lang)
        return [Ask("single-fact", c.say("q_price", f), f["price"], {"buy": f["price"]}),
                Ask("temporal", c.say("q_month", dict(f, month=month)), item, {"buy": item}, when=month),
                *_recent(c, at, "buy", f, item, item)]
    return Story("purchase", [buy], ask, recent=True, events=[(c.say("label", f), "buy", item)], near=c.near(f))


def port(c: Cast) -> Story:
    service, svc_q = c.pick("services")
    reason, why = c.pick("reasons")
    p1, p2 = c.rng.sample(c.text.PORTS, 2)
    f = c.fields(service=service, svc_q=svc_q, p1=p1, p2=p2, reason=reason, why=why, other_port=c.rng.choice(c.text.PORTS))

    def first(day: dt.date) -> list[Line]:
        return [c.line("o", "first", f, "first"), c.line("x", "first_react", f)]

    def moved(day: dt.date) -> list[Line]:
        return [c.line("o", "moved", f, "moved"), c.line("x", "moved_react", f), c.line("o", "moved_more", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("temporal", c.say("q_now", f), p2, {"moved": p2}),
                Ask("multi-hop", c.say("q_first", f), p1, {"first": p1, "moved": p1}),
                Ask("single-fact", c.say("q_why", f), why, {"moved": why})]
    return Story("port", [first, moved], ask, near=c.near(f))


def birthday(c: Cast) -> Story:
    age = c.rng.randrange(4, 11)
    f = c.fields(age=c.text.number(age), theme=c.pick("themes"))

    def plan(day: dt.date) -> list[Line]:
        f["phrase"] = c.text.FUTURE_SUNDAY
        f["when"] = resolve(f["phrase"], day, c.lang)
        return [c.line("o", "plan", f, "plan"), c.line("x", "plan_react", f)]

    def after(day: dt.date) -> list[Line]:
        return [c.line("x", "after_ask", f), c.line("o", "after", f, "after")]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_age", f), f["age"], {"plan": f["age"]}),
                Ask("single-fact", c.say("q_theme", f), f["theme"], {"plan": f["theme"], "after": f["theme"]}),
                Ask("temporal", c.say("q_when", f), f["when"].isoformat(), {"plan": f["phrase"]}, "date")]
    return Story("birthday", [plan, after], ask, gap=1, near=c.near(f))


def trip(c: Cast) -> Story:
    place, language = c.pick("places")
    f = c.fields(place=place, language=language, sight=c.pick("sights"))

    def back(day: dt.date) -> list[Line]:
        return [c.line("x", "back_ask", f), c.line("o", "back", f, "back"), c.line("o", "back_more", f, "sight")]

    def ask(at: At) -> list[Ask]:
        month = month_expr(at("back"), c.lang)
        return [Ask("temporal", c.say("q_month", dict(f, month=month)), place, {"back": place}, when=month),
                Ask("open-domain", c.say("q_language", f), language, {"back": place}, "world"),
                Ask("single-fact", c.say("q_sight", f), f["sight"], {"sight": f["sight"]}),
                *_recent(c, at, "back", f, place, place)]
    return Story("trip", [back], ask, recent=True, events=[(c.say("label", f), "back", place)], near=c.near(f))


def hobby(c: Cast) -> Story:
    h = c.pick("hobbies")
    f = c.fields(**h)

    def signup(day: dt.date) -> list[Line]:
        return [c.line("o", "signup", f, "signup"), c.line("x", "signup_react", f)]

    def made(day: dt.date) -> list[Line]:
        return [Line("o", h["made_line"].format(**f), "made"), c.line("x", "made_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("multi-hop", h["q_made"].format(**f), h["made"], {"signup": h["hobby"], "made": h["made"]}),
                Ask("single-fact", c.say("q_day", f), h["day"], {"signup": h["day"]}),
                Ask("open-domain", h["q_gift"].format(**f), h["gift_answer"], {"signup": h["hobby"]}, "world")]
    return Story("hobby", [signup, made], ask, near=c.near(f))


def books(c: Cast) -> Story:
    n1 = c.rng.randrange(3, 15)
    title, author = c.pick("books")
    f = c.fields(n1=n1, n2=n1 + c.rng.randrange(3, 9), goal=c.rng.choice((20, 24, 25, 30, 40, 50)), title=title,
                 author=author)

    def start(day: dt.date) -> list[Line]:
        return [c.line("o", "start", f, "start"), c.line("x", "start_react", f)]

    def later(day: dt.date) -> list[Line]:
        return [c.line("o", "later", f, "later"), c.line("x", "later_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("temporal", c.say("q_now", f), str(f["n2"]), {"later": str(f["n2"])}),
                Ask("single-fact", c.say("q_goal", f), str(f["goal"]), {"start": str(f["goal"])})]
    return Story("books", [start, later], ask, near=c.near(f))


def injury(c: Cast) -> Story:
    f = c.fields(sport=c.pick("sports"), part=c.pick("parts"))

    def hurt(day: dt.date) -> list[Line]:
        f["phrase"], f["when"] = pick_past(c.rng, day, c.lang)
        return [c.line("o", "hurt", f, "hurt"), c.line("x", "hurt_react", f), c.line("o", "hurt_more", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_how", f), f["sport"], {"hurt": f["sport"]}),
                Ask("temporal", c.say("q_when", f), f["when"].isoformat(), {"hurt": f["phrase"]}, "date"),
                *_recent(c, at, "hurt", f, f["part"], f["part"])]
    return Story("injury", [hurt], ask, recent=True, events=[(c.say("label", f), "hurt", f["sport"])], near=c.near(f))


def preference(c: Cast) -> Story:
    p = c.pick("prefs")
    f = c.fields(**p)

    def say(day: dt.date) -> list[Line]:
        return [Line("x", p["offer"].format(**f)), Line("o", p["say"].format(**f), "pref"), c.line("x", "pref_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("open-domain", p["q"].format(**f), p["answer"], {"pref": p["clue"]}, "world")]
    return Story("preference", [say], ask, near=c.near(f))


def wedding(c: Cast) -> Story:
    venue, where = c.pick("venues")
    f = c.fields(venue=venue, where=where)

    def plan(day: dt.date) -> list[Line]:
        f["month"] = c.text.month_name(day.month % 12 + 1)  # next month: before the step that tells how it went
        return [c.line("o", "plan", f, "plan"), c.line("x", "plan_react", f)]

    def after(day: dt.date) -> list[Line]:
        return [c.line("o", "after", f, "after"), c.line("x", "after_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_where", f), where, {"plan": where}),
                Ask("open-domain", c.say("q_season", f), c.text.WORLD[f["month"]], {"plan": f["month"]}, "world")]
    return Story("wedding", [plan, after], ask, near=c.near(f))


def recommend(c: Cast) -> Story:
    title, author = c.pick("books")
    f = c.fields(title=title, author=author)

    def tip(day: dt.date) -> list[Line]:
        return [c.line("x", "tip", f, "tip"), c.line("o", "tip_react", f)]

    def read(day: dt.date) -> list[Line]:
        return [c.line("o", "read", f, "read"), c.line("x", "read_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_title", f), title, {"tip": title}),
                Ask("single-fact", c.say("q_author", f), author, {"tip": author})]
    return Story("recommend", [tip, read], ask, gap=1, near=c.near(f))


def concert(c: Cast) -> Story:
    band, song = c.pick("bands")
    f = c.fields(band=band, song=song, hours=c.rng.choice(c.text.HOURS))

    def show(day: dt.date) -> list[Line]:
        return [c.line("x", "ask", f), c.line("o", "show", f, "show"), c.line("x", "show_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("single-fact", c.say("q_song", f), song, {"show": song}),
                Ask("single-fact", c.say("q_long", f), f["hours"], {"show": f["hours"]}),
                *_recent(c, at, "show", f, song, song)]
    return Story("concert", [show], ask, recent=True, events=[(c.say("label", f), "show", song)], near=c.near(f))


def car(c: Cast) -> Story:
    car1, car2 = c.rng.sample(c.text.POOLS["cars"], 2)
    f = c.fields(car1=car1, car2=car2, color=c.pick("colors"))

    def noise(day: dt.date) -> list[Line]:
        return [c.line("o", "noise", f, "noise"), c.line("x", "noise_react", f)]

    def traded(day: dt.date) -> list[Line]:
        return [c.line("o", "traded", f, "traded"), c.line("x", "traded_react", f)]

    def ask(at: At) -> list[Ask]:
        return [Ask("temporal", c.say("q_now", f), car2, {"traded": car2}),
                Ask("multi-hop", c.say("q_before", f), car1, {"noise": car1, "traded": car1})]
    return Story("car", [noise, traded], ask, near=c.near(f))


ALL = (pets, job, move, purchase, port, birthday, trip, hobby, books, injury, preference, wedding, recommend,
       concert, car)
NEEDS = {"port": lambda p: p.tech, "birthday": lambda p: p.kid is not None}
