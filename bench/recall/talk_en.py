"""English people and small talk: the filler that fills most of a real conversation and shares its common words."""
from __future__ import annotations

NAMES = [("Caroline", "f"), ("Melanie", "f"), ("Jordan", "m"), ("Priya", "f"), ("Marcus", "m"), ("Elena", "f"),
         ("Tobias", "m"), ("Hannah", "f"), ("Derek", "m"), ("Sofia", "f"), ("Nathan", "m"), ("Grace", "f"),
         ("Omar", "m"), ("Lucy", "f"), ("Ravi", "m"), ("Chloe", "f"), ("Benji", "m"), ("Aisha", "f"), ("Felix", "m"),
         ("Maya", "f"), ("Victor", "m"), ("Nora", "f"), ("Samuel", "m"), ("Ingrid", "f"), ("Leo", "m"),
         ("Tessa", "f"), ("Malik", "m"), ("Julia", "f"), ("Owen", "m"), ("Zoe", "f"), ("Hugo", "m"), ("Clara", "f"),
         ("Ethan", "m"), ("Rosa", "f")]
PARTNERS = ["Tom", "Dana", "Alex", "Chris", "Jamie", "Robin", "Pat", "Kai", "Morgan", "Sasha", "Drew", "Casey"]
KIDS = [("Emma", "f"), ("Noah", "m"), ("Lily", "f"), ("Max", "m"), ("Ava", "f"), ("Finn", "m"), ("Mia", "f"),
        ("Jack", "m"), ("Ruby", "f"), ("Theo", "m")]
SIBLINGS = [("Beth", "f"), ("Anna", "f"), ("Kate", "f"), ("Laura", "f"), ("Paul", "m"), ("Mike", "m"), ("Daniel", "m"),
            ("Nina", "f"), ("Greg", "m"), ("Ellie", "f")]
CITIES = ["Portland", "Austin", "Chicago", "Denver", "Boston", "Seattle", "Atlanta", "Minneapolis", "Toronto",
          "Manchester", "Phoenix", "Pittsburgh"]
TIMES = ["07:45", "12:30", "18:15", "19:30", "20:05", "21:40", "22:10"]

OPEN = [["Hey {you}! How's your week going?", "Hey {you}! Busy but good. You?"],
        ["{you}! Long time no talk.", "I know, right? Life has been a lot, {you}."],
        ["Morning, {you}! Got a minute?", "Always for you, {you}. What's up?"],
        ["Hi {you}, it's been a crazy week.", "Tell me about it. Hi, {you}!"],
        ["Happy Friday, {you}!", "Finally! Hi {you}."],
        ["{you}, are you free to chat?", "Yes! Perfect timing, I just sat down."]]
CLOSE = [["Okay, I have to run. Talk soon, {you}!", "Bye! Hugs to {yourpartner}."],
         ["Gotta go make dinner. Bye, {you}!", "Night, {you}! Talk soon."],
         ["I should sleep. Good night, {you}.", "Sleep well, {you}!"],
         ["My break is over, ugh. Later, {you}!", "Later! Don't work too hard."]]

# Exchanges of small talk; {you} is the one spoken to, {partner}/{city} the speaker's own; slots shared by an exchange.
SMALL = [
    ["How's the weather in {city}?", "{weather}. The usual.", "Ha, same old then."],
    ["What did you have for dinner?", "{partner} made {dish}. Not bad at all.", "Yum. Jealous, {you}."],
    ["Have you watched {show} yet?", "Two episodes in! No spoilers, {you}.", "My lips are sealed."],
    ["Work has been nonstop this week.", "Same here. I had {n} meetings on Tuesday alone.", "That's criminal, {you}."],
    ["I finally cleaned out the garage.", "Find anything good?", "A box of old photos and {n} mismatched socks."],
    ["Any plans for the weekend, {you}?", "Nothing! Sleeping in and maybe {dish} for brunch.", "Honestly, that sounds perfect."],
    ["{partner} says hi, by the way.", "Hi back! Tell {yourpartner} I still owe them a coffee."],
    ["I tried that new bakery on {street} Street.", "And?", "The croissants were worth the line, {you}."],
    ["Did you sleep at all last night?", "Barely. The neighbors had a party until {hour}.", "Ugh, {you}, I'm sorry."],
    ["I did {steps} steps today!", "Show-off. I did maybe a thousand.", "Ha, it all counts, {you}."],
    ["My phone screen cracked again.", "Again?! That's the {nth_time} time this year, {you}.", "Don't remind me."],
    ["Guess who called me today? My mom.", "How is she?", "Good! Still asking when I'll visit."],
    ["I'm so tired of {weather_word} weather.", "Tell me about it. Spring can't come soon enough, {you}.",
     "Or fall. Anything but this."],
    ["We finally watched {show}.", "And? Worth the hype?", "The ending was a mess, {you}. Don't bother."],
    ["Do you still do the Sunday market?", "Most weeks. The cheese guy knows my name now.", "Of course he does, {you}."],
    ["I burned {dish} tonight. Smoke alarm and everything.", "Haha, classic {you}.", "{partner} opened every window."],
    ["The traffic in {city} today was ridiculous.", "Road works again?", "Always. {n} minutes for two miles."],
    ["I started a podcast about {topic}.", "Wait, recording one or listening to one?", "Listening! I'm not that brave, {you}."],
    ["Remember that cafe we went to last year?", "The one with the tiny cups?", "It closed! I'm devastated, {you}."],
    ["I'm trying to drink more water.", "How's that going?", "I've had {n} glasses today. A record."],
    ["My plants are dying again.", "Are you watering them?", "Define watering, {you}."],
    ["Our landlord finally fixed the heater.", "Only took {n} emails, huh?", "Ha! {n} emails and a phone call."],
    ["I've been craving {dish} all day.", "So make it!", "Too lazy. Cereal it is, {you}."],
    ["Did you see the news about the new stadium?", "Yeah, {n} million dollars. Wild.", "Meanwhile the buses never come."],
    ["I got a parking ticket. {n} dollars!", "Noooo. Where?", "Right outside my own building, {you}."],
    ["I miss our road trips, {you}.", "Me too! We should plan one.", "Let's do it this summer. For real this time."],
    ["What are you reading these days?", "Mostly work emails, sadly.", "That's not reading, {you}, that's suffering."],
    ["My sister keeps sending me memes at 3 AM.", "Does she ever sleep?", "Apparently not, {you}."],
    ["Coffee number {nth_word} today.", "That's a cry for help, {you}.", "It's a lifestyle."],
    ["I think I'm getting a cold.", "Tea with honey and lemon, {you}. Doctor's orders.", "Yes, doctor."],
    ["The gym was empty this morning.", "Because normal people sleep at six, {you}.", "Fair point."],
    ["We had a power outage for {n} hours.", "Oh no, your freezer!", "Everything survived. Barely."],
    ["I need a haircut so badly.", "Just go!", "Booked for {day}. Happy now, {you}?"],
    ["I keep thinking about that {dish} we had in {city}.", "Best meal of the year, no contest.", "We need to go back."],
    ["Happy belated, by the way!", "Thank you, {you}! It was low-key.", "Low-key is underrated."],
    ["Ugh, Mondays.", "It's {day}, {you}.", "See? That's how bad my week is."],
    ["How's your mom doing?", "Much better, thanks for asking, {you}.", "So glad to hear that."],
    ["I finally fixed the squeaky door.", "With what?", "Olive oil. Don't tell {partner}."],
]
SLOTS = {
    "weather": ["Grey and rainy", "Sunny but freezing", "Hot and sticky", "Windy all day", "Snowing, of course"],
    "weather_word": ["rainy", "cold", "humid", "grey"],
    "dish": ["lasagna", "fish tacos", "mushroom risotto", "chicken curry", "pancakes", "ramen", "shakshuka", "chili"],
    "show": ["that baking competition", "the new detective show", "the space documentary", "that Danish crime drama"],
    "street": ["Maple", "Oak", "Pine", "Elm", "Cedar", "Harbor"],
    "topic": ["true crime", "ancient history", "houseplants", "personal finance", "old movies"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
    "nth_time": ["third", "fourth", "second"],
    "nth_word": ["three", "four", "five"],
    "hour": ["2 AM", "3 AM", "1 AM"],
}
NUMBERS = range(2, 40)
STEPS = range(8000, 21000, 500)

# Real messages often carry more than one thing: a lead-in or a tail around what matters.
LEADS = ["Sorry for the slow reply, {you}, it's been a week.", "Okay, update time!", "Oh! Before I forget:",
         "Ha, that reminds me.", "Long day, but anyway.", "You won't believe this, {you}.", "So, random news:"]
TAILS = ["Anyway, how's {yourpartner} doing?", "Also I really need a nap.", "Other than that, work is work.",
         "Oh, and the weather here is awful again.", "How was your weekend, by the way?", "Also, {partner} says hi!",
         "Ugh, and I still haven't done the laundry.", "Anyway, what's new with you?"]
JOIN = " "
# A later session's callback to something said before: it names the thing (the answer to a question about
# it), not the fact; real chats are full of these, and a ranking must not mistake them for the fact.
FOLLOW = ["Wait, any news about {thing}?", "I keep thinking about {thing}, you know.", "Oh! {thing}, how's that going?",
          "Remind me to ask you more about {thing} sometime.", "So, {thing}... still on your mind?",
          "Funny, {partner} brought up {thing} yesterday."]
FOLLOW_REPLY = ["Ha, long story. Next time!", "All good, honestly. Same as before.", "Oh, you remembered! Nothing new, really.",
                "Don't get me started, lol.", "Still figuring it out, to be honest."]
