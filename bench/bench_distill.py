"""Benchmark: rule-mode distill, core summary, redaction and rule importance — microseconds per message."""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EN = [
    "Had a productive chat about the BSC integration. User decided to use raw JSON-RPC for BSC to avoid go-ethereum.",
    "Deployed v2.3.0 to https://app.example.com/dash. Run `git pull && make deploy` then check /var/log/app/error.log.",
    "Alice said the staging database migration failed with a timeout; we need to retry tomorrow at 10:00.",
    "Remember: I prefer concise replies under 150 words, and TypeScript over JavaScript for new projects.",
    "By the way, the office coffee machine is broken again today.",
    "The API key rotation is scheduled; token=abc123def456 must be replaced in ~/.config/app/.env before Friday.",
]
ZH = [
    "我们决定使用 REST 保持简单，和王伟讨论了部署方案。文档在 https://docs.example.cn/api，运行 pip install memoryd 即可。",
    "记住：项目预算 5 万，9 月 15 日前完成。",
    "我对花生过敏，以后点餐都要注意。",
    "部署 v2.3.0 到生产环境，无问题报告。下一步：监控错误率。",
]


def bench(name: str, fn, messages: list[str], rounds: int) -> None:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for m in messages:
            fn(m)
        samples.append((time.perf_counter() - start) / len(messages) * 1e6)
    print(f"{name:<22} median {statistics.median(samples):8.1f} µs/msg   best {min(samples):8.1f} µs/msg")


def main() -> None:
    from memoryd.tiers.distillation.distill import core_summary, distill
    from memoryd.tiers.distillation.importance import rule_importance
    from memoryd.tiers.distillation.redact import redact

    rng = random.Random(7)
    messages = [rng.choice(EN + ZH) + f" (#{i})" for i in range(2000)]
    print(f"{len(messages)} messages, {sum(len(m.encode()) for m in messages) // len(messages)} bytes avg, en+zh mix")
    distill(messages[0])  # compile regexes outside the timing
    bench("distill (rule)", distill, messages, 5)
    bench("core_summary", lambda m: core_summary(distill(m)), messages, 3)
    bench("redact", redact, messages, 5)
    bench("rule_importance", rule_importance, messages, 5)
    bench("store pipeline", lambda m: (lambda t: (distill(t), rule_importance(t)))(redact(m)[0]), messages, 3)
    worst_case(distill, redact, rule_importance)


def worst_case(*fns) -> None:
    """Adversarial 4 KB inputs (the store limit): the slowest call, to catch regex blow-ups."""
    cases = ["sk-" * 1300, "x-" * 2000, "/" * 4000, "a/" * 2000, "`" * 4000, "@" * 4000, "和王" * 1300,
             "password=" * 400, "bearer " * 500, "Aa " * 1300, "http://" + "a:" * 1500 + "@"]
    slowest, which = 0.0, ""
    for text in cases:
        for fn in fns:
            start = time.perf_counter()
            fn(text)
            took = time.perf_counter() - start
            if took > slowest:
                slowest, which = took, f"{fn.__name__}({text[:12]!r}…)"
    print(f"worst case 4 KB input  {slowest * 1000:8.1f} ms   ({which})")


if __name__ == "__main__":
    main()
