"""Low-value turns — acknowledgements, filler, pleasantries ("Thanks!", "Sure, will do.", "Good lesson. I'll avoid
repeating that.", "哈哈", "好的") — are not kept as memories: not as raw turns, not as facts.

Conservative on purpose: a turn is filler only when it is short (≤ MAX_WORDS words, ≤ MAX_CJK characters)
and every word of it is a filler word (a number, a name or any other word keeps it), so an answer that
says anything at all stays. Beyond that, two narrow shapes that state nothing (no number, no link, no command;
a thing they name is what the talk is about, not a value of it):
  - from anyone: thanks for something done, a talk put off ("let's go over it tomorrow"), "nothing to
    report" / "no news on …", a reminder asked about vague "stuff";
  - from the assistant: a pleasantry or acknowledgement followed by an offer or a deferral that commits to
    nothing ("Sure, we can go over the hosting tomorrow.", "Happy to help with the review whenever you're
    ready."); a promise with content ("好的，我会准备发布清单") stays.
"""
from __future__ import annotations

import re

MAX_WORDS = 12
MAX_CJK = 12
FILLER_EN = frozenset("""
ok okay k kk sure yes yeah yep yup yea no nope nah thanks thank thx ty tysm you so much very lot lots a the that this
it its it's great good nice cool awesome perfect fine alright all right sounds sound got noted understood will do done
lesson lessons learned learnt avoid avoiding repeating repeat again i i'll ill i'm im i've we we'll let's me my glad
to help helps helped helpful happy welcome you're youre anytime problem problems np haha hahaha lol lmao hah hehe heh hmm hm um uh oh ah wow whoa cheers
bye goodbye see ya later morning night evening hi hello hey sorry bad exactly indeed absolutely definitely of course
totally makes make sense agreed agree true keep in mind remember note will that's thats appreciate appreciated
excellent super neat fair enough works for go ahead on sounds right got it roger copy wilco same here too
""".split())
FILLER_ZH = ("哈哈哈", "哈哈", "呵呵", "嘿嘿", "好的", "好滴", "好嘞", "好", "嗯嗯", "嗯", "哦", "噢", "啊", "呀", "吧", "啦", "了", "的",
             "谢谢你", "谢谢", "多谢", "感谢", "收到", "明白了", "明白", "知道了", "了解", "懂了", "行", "可以", "没问题",
             "没事", "不客气", "对", "是的", "没错", "好主意", "辛苦了", "晚安", "早安", "你好", "再见", "拜拜", "ok", "OK")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_NOT_WORD = re.compile(r"[\s\W_]+", re.UNICODE)
_ZH = re.compile("|".join(sorted(map(re.escape, FILLER_ZH), key=len, reverse=True)))


_EMPTY_ANY = re.compile(
    r"^(?:thanks|thank you|thx|cheers)\s+(?:so much\s+|a lot\s+)?for\b|"
    r"^(?:let'?s|we can|we could|can we)\s+(?:talk|chat|pick (?:this|it|that) up|catch up|sync|go over|discuss|"
    r"look at|get back to|circle back)\b.*\b(?:later|tomorrow|next (?:week|time)|another time|soon|monday|tuesday|"
    r"wednesday|thursday|friday)\W*$|"
    r"^remind me (?:about|of) (?:the )?\w+(?:\s+\w+)? (?:stuff|thing|things)\b|"
    r"^(?:talk|speak|chat) (?:to you )?(?:later|soon|tomorrow)\b|"
    r"^(?:谢谢|感谢|多谢)你?(?:帮忙|帮我)|明天再(?:说|聊)|回头再(?:说|聊)",
    re.IGNORECASE)
_NOTHING = re.compile(r"\bnothing (?:new )?to report\b|^no (?:news|updates?|change|progress) (?:on|about|from|with)\b|"
                      r"没什么(?:新的|可)?(?:要)?(?:说|报告)", re.IGNORECASE)
_PLEASANTRY = re.compile(
    r"^\s*(?:sure|ok(?:ay)?|of course|absolutely|certainly|no problem|no worries|happy to help|glad to help|"
    r"glad (?:that|it|to hear)|good lesson|good point|great|perfect|got it|noted|understood|will do|you'?re welcome|"
    r"anytime|my pleasure|sounds good|makes sense|fair enough|good (?:morning|evening|night)|hi|hello|hey|sorry|"
    r"好的|没问题|不客气|收到|明白|当然|好呀|好嘞)\b", re.IGNORECASE)
# what follows an assistant's pleasantry when it offers or defers and commits to nothing
_OFFER = re.compile(r"\b(?:can|could) (?:go over|look at|talk about|discuss|get to|pick (?:this |it )?up|revisit)\b|"
                    r"whenever you(?:'re| are) ready|\bcan wait\b|\bavoid repeating\b|\blet me know\b|"
                    r"\bhere(?: is|'s) what i found\b|\bglad (?:it|that) (?:worked|helped)\b|\bhappy to help\b",
                    re.IGNORECASE)
_CONTENT = re.compile(r"\d|https?://|\w\.\w{2,}/|`|\$\(|/\w+/")


def is_low_value(text: str, role: str | None = None) -> bool:
    """Whether `text` is only an acknowledgement, filler or a pleasantry (see the module docstring); `role`
    "assistant" also counts an assistant's pleasantry with an offer or promise."""
    if _bare_filler(text):
        return True
    folded = " ".join(text.strip().casefold().replace("’", "'").split())
    if _CONTENT.search(folded) or len(folded.split()) > 2 * MAX_WORDS:
        return False
    if _NOTHING.search(folded):  # "fine, nothing to report": said to say there is nothing
        return True
    if not _EMPTY_ANY.search(folded) and not (role == "assistant" and _PLEASANTRY.search(folded) and _OFFER.search(folded)):
        return False
    return True


def _bare_filler(text: str) -> bool:
    folded = text.strip().casefold().replace("’", "'")
    if not folded:
        return True
    if _CJK.search(folded):
        rest = _NOT_WORD.sub("", _ZH.sub("", folded))
        return len(_CJK.findall(folded)) <= MAX_CJK and (not rest or all(w in FILLER_EN for w in _WORD.findall(rest))
                                                         and not _CJK.search(rest) and not re.search(r"\d", rest))
    words = _WORD.findall(folded)
    if not words or len(words) > MAX_WORDS or re.search(r"[^\x00-\x7f]", _NOT_WORD.sub("", folded)):
        return False if words else not re.search(r"\w", folded)
    return all(w in FILLER_EN for w in words)
