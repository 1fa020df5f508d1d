"""Two daily notes (English, Chinese) the note tests share: parsed in test_note_parse, ingested in test_dailynotes."""
from __future__ import annotations

EN_NOTE = """# 2026-02-18

## 10:30 AM - API discussion
Discussed REST vs GraphQL. Decision: use REST to keep it simple.
Key endpoints: /users, /auth, /projects.

## 2:15 PM - Deploy
Deployed v2.3.0 to https://prod.example.com with `make deploy`. No issues reported.

## 5:00 PM - Call with Bob about pricing

## Retain
- W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.
- B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers in try/catch.
- O(c=0.95) @Peter: Prefers concise replies (<1500 chars) on WhatsApp; long content goes into files.
- S The week was mostly about deployment.
"""

ZH_NOTE = """# 2026-02-19

## 上午 10:30 - API 讨论
讨论了 REST vs GraphQL。决策：使用 REST 保持简单。
关键端点：/users, /auth, /projects。

## 下午 4:00 - 用户偏好
用户提到更喜欢 TypeScript 而非 JavaScript。

## Retain
- O(c=0.8) @用户: 更喜欢 TypeScript。
- W @王伟: 负责部署，文档在 https://docs.example.cn/deploy。
"""
