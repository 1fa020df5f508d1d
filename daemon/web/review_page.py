"""The Review page: the knowledge questions the rules could not decide, each answered with one button (current,
both, merge, dismiss) when edits are allowed, and the answers given on this device with an Undo button."""
from __future__ import annotations

from memoryd.daemon.web.render import View, esc, post_button
from memoryd.tiers.base.errors import UsageError

ACTIONS = (("current", "Newer replaces older", "The newer memory holds the current value; the older stays as history."),
           ("both", "Both stay true", "Two different things: keep both current; the question never comes back."),
           ("merge", "Same thing, merge", "The newer restates the older: one memory, the older kept as its source."),
           ("dismiss", "Dismiss", "Not a useful question."))
ASKS = {"same_thing": "Two memories that may be two values of one thing. Does the newer replace the older?",
        "confirm": "A belief that a later fact may confirm.",
        "evidence": "An opinion and a memory that may support or contradict it."}
Form = dict[str, str]


def review(view: View) -> tuple[str, str]:
    shown = view.data.api.review_list(agent_id=view.agent)
    questions = shown["questions"]
    if not questions:
        body = '<p class="empty">No open questions: the rules decided everything they could.</p>'
    else:
        body = "".join(_question(view, q) for q in questions)
    if view.edits and shown.get("answered"):
        undo = "".join(f"<li><code>{esc(qid)}</code> " + post_button(view, "/review/answer", "Undo", {
            "id": qid, "action": "undo"}) + "</li>" for qid in shown["answered"])
        body += ('<section aria-labelledby="done-h"><h2 id="done-h">Answered on this device</h2>'
                 f"<ul>{undo}</ul></section>")
    elif not view.edits:
        body += '<p class="note">Read-only: set [web] allow_edits = true in config.toml to answer questions here.</p>'
    return "Review", body


def _question(view: View, q: dict) -> str:
    members = "".join(f'<li><time datetime="{esc(m["date"])}">{esc(m["date"])}</time> <code>{esc(m["id"])}</code> '
                      f'<span class="kind">{esc(m["kind"])}</span> {esc(m["text"])}</li>' for m in q["members"])
    buttons = ""
    if view.edits:
        buttons = '<p class="actions">' + "".join(post_button(view, "/review/answer", label, {
            "id": q["id"], "action": action}) for action, label, _ in ACTIONS) + "</p>"
    return (f'<section class="question" id="q-{esc(q["id"])}" aria-labelledby="h-{esc(q["id"])}">'
            f'<h2 id="h-{esc(q["id"])}">{esc(ASKS.get(q["kind"], q["kind"]))} <code>{esc(q["id"])}</code></h2>'
            f'<ol class="members">{members}</ol><p class="why">{esc(q.get("why") or "")}</p>{buttons}</section>')


def answer(view: View, form: Form) -> str:
    """POST /review/answer: id and action (current, both, merge, dismiss, or undo)."""
    qid, action = form.get("id", "").strip(), form.get("action", "").strip()
    if action == "undo":
        done = view.data.api.review_undo(agent_id=view.agent, question_id=qid)
        return f"Undid the answer {done['undone']!r} to {qid}: the question is open again."
    if action not in {a for a, _, _ in ACTIONS}:
        raise UsageError(f"unknown answer {action!r}")
    done = view.data.api.review_resolve(agent_id=view.agent, question_id=qid, action=action)
    return f"Answered {qid}: {action}."
