"""Word lists (English and Chinese) used by the rule-mode distiller and the importance rules."""
from __future__ import annotations

TOPICS: dict[str, tuple[str, ...]] = {
    "blockchain": ("blockchain", "bsc", "ethereum", "web3", "solidity", "smart contract", "token swap", "区块链", "智能合约"),
    "architecture": ("architecture", "design", "refactor", "module", "interface", "架构", "设计", "重构"),
    "dependencies": ("dependency", "dependencies", "deps", "package", "library", "依赖", "第三方库"),
    "deployment": ("deploy", "deployed", "deployment", "production", "staging", "release", "rollout",
                   "部署", "上线", "发布", "生产环境"),
    "database": ("database", "db", "postgres", "postgresql", "mysql", "sqlite", "libsql", "redis", "schema",
                 "sql", "数据库"),
    "api": ("api", "rest", "graphql", "endpoint", "json-rpc", "rpc", "webhook", "接口"),
    "testing": ("test", "tests", "testing", "pytest", "unit test", "ci", "测试", "单元测试"),
    "bugs": ("bug", "error", "crash", "exception", "traceback", "fix", "fixed", "报错", "错误", "崩溃", "异常", "修复"),
    "security": ("security", "auth", "authentication", "encryption", "vulnerability", "password", "安全", "加密", "认证"),
    "performance": ("performance", "latency", "slow", "fast", "benchmark", "optimize", "性能", "延迟", "优化"),
    "frontend": ("frontend", "ui", "css", "react", "vue", "typescript", "javascript", "前端", "界面"),
    "meeting": ("meeting", "call", "standup", "sync", "discussion", "chat", "会议", "开会", "讨论"),
    "planning": ("plan", "deadline", "roadmap", "milestone", "schedule", "hackathon", "计划", "截止", "里程碑", "排期"),
    "health": ("health", "allergic", "allergy", "doctor", "medicine", "sick", "hospital", "健康", "过敏", "医生", "生病", "医院"),
    "food": ("food", "lunch", "dinner", "restaurant", "coffee", "cilantro", "peanut", "吃饭", "餐厅", "咖啡", "香菜", "花生"),
    "travel": ("travel", "trip", "flight", "hotel", "airport", "旅行", "出差", "航班", "酒店"),
    "finance": ("budget", "cost", "price", "invoice", "payment", "salary", "预算", "费用", "价格", "工资", "付款"),
    "family": ("family", "wife", "husband", "son", "daughter", "mother", "father", "kids", "家人", "妻子", "丈夫", "孩子", "父母"),
    "work": ("job", "work", "office", "team", "manager", "colleague", "工作", "公司", "团队", "同事"),
    "learning": ("learn", "learning", "course", "book", "study", "tutorial", "学习", "课程", "读书"),
    "ai": ("llm", "model", "prompt", "agent", "embedding", "gpt", "claude", "ollama", "模型", "智能体", "提示词"),
    "memory": ("memory", "remember", "recall", "记忆", "记住"),
}

EMOTIONS: dict[str, tuple[str, ...]] = {
    "determined": ("decided", "decide", "must", "committed", "will definitely", "going to", "决定", "一定", "必须"),
    "happy": ("happy", "glad", "great", "love", "excited", "awesome", "amazing", "yay", "开心", "高兴", "太好了", "兴奋"),
    "satisfied": ("productive", "finally", "solved", "satisfied", "works now", "nailed", "满意", "搞定", "终于"),
    "frustrated": ("frustrated", "frustrating", "annoying", "annoyed", "stuck", "ugh", "hate", "烦", "郁闷", "卡住", "崩溃了"),
    "worried": ("worried", "concerned", "anxious", "afraid", "nervous", "risk", "担心", "焦虑", "害怕", "紧张"),
    "sad": ("sad", "disappointed", "unfortunately", "sorry", "upset", "难过", "失望", "遗憾", "伤心"),
    "curious": ("curious", "wonder", "wondering", "interesting", "好奇", "有意思", "想知道"),
    "surprised": ("surprised", "unexpected", "wow", "surprisingly", "惊讶", "意外", "没想到"),
}

OUTCOME_POS = ("success", "successful", "successfully", "fixed", "solved", "resolved", "works", "working", "done",
               "completed", "shipped", "deployed", "decided", "merged", "passed", "approved", "agreed", "productive",
               "成功", "完成", "解决", "搞定", "上线", "通过", "决定", "修复")
OUTCOME_NEG = ("failed", "fail", "failure", "broken", "error", "crash", "crashed", "blocked", "couldn't", "cannot",
               "can't", "rejected", "regression", "timeout", "lost", "bug",
               "失败", "报错", "崩溃", "卡住", "错误", "阻塞", "超时", "丢失")

ACTION_EN = ("decided", "decide", "chose", "choose", "fixed", "fix", "deployed", "deploy", "implemented", "implement",
             "added", "add", "removed", "remove", "switched", "switch", "migrated", "migrate", "released", "release",
             "created", "create", "wrote", "merged", "refactored", "installed", "configured", "agreed", "planned",
             "plan to", "will", "need to", "needs to", "should", "avoid", "avoided", "use", "using", "used", "adopted",
             "moved", "upgraded", "built", "shipped", "tested", "reviewed", "scheduled", "booked", "bought", "sent")
ACTION_ZH = ("决定", "选择", "修复", "部署", "实现", "添加", "删除", "切换", "迁移", "发布", "创建", "完成", "计划",
             "需要", "采用", "使用", "改用", "升级", "安装", "配置", "上线", "预订", "购买", "发送", "避免")

# Regexes for conversational filler that carries no fact.
FILLERS = (r"\b(?:um+|uh+|erm|hmm+|like,)\s*", r"\bbasically,?\s*", r"\bactually,?\s*(?=\w)",
           r"^(?:so|well|ok|okay|hey|hi)\b[,!]?\s*", r"\bhad a (?:productive |quick |long |good )?(?:chat|talk|call|discussion) about\s*",
           r"\bI (?:think|guess|feel like)\s+(?=\w)", r"\bby the way,?\s*", r"\bbtw,?\s*",
           r"嗯+[，,]?", r"那个[，,]", r"顺便说一下[，,]?", r"就是说[，,]?", r"其实[，,]?")

# Capitalised words that are not people when they follow "with"/"to"/... (and before "said"/"'s").
NOT_NAMES = frozenset("""
I The A An This That These Those It We You They He She My Our Your Their His Her Its
Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Tomorrow Yesterday Tonight
January February March April May June July August September October November December
Python Rust Go Java JavaScript TypeScript React Vue Docker Kubernetes Linux Windows Mac Git GitHub Slack
English Chinese Then And But Also Just Please Thanks Next Last New Old User Users Team Everyone
Owner Assistant Agent Bot Someone Nobody
Production Staging Postgres Redis Turso Ollama Claude Gemini Google Apple Amazon Microsoft
""".split())

ZH_SURNAMES = frozenset("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤老小阿")

CMD_TOOLS = ("git", "pip", "pip3", "pipx", "uv", "python", "python3", "npm", "npx", "pnpm", "yarn", "node", "docker",
             "docker-compose", "kubectl", "helm", "systemctl", "journalctl", "curl", "wget", "ssh", "scp", "rsync",
             "make", "cargo", "go", "brew", "apt", "apt-get", "dnf", "yum", "pytest", "memoryd", "openclaw", "terraform",
             "aws", "gcloud", "az", "sqlite3", "psql", "redis-cli", "chmod", "chown", "mkdir", "rm", "cp", "mv",
             "tar", "ls", "cat", "grep", "sed", "awk", "export", "source", "launchctl", "crontab", "turso", "sqld",
             "ollama", "vllm", "llama-server", "bash", "sh", "zsh", "tmux", "ffmpeg", "conda", "poetry", "gh")

SUBCOMMANDS = ("install", "uninstall", "run", "build", "push", "pull", "clone", "commit", "checkout", "switch", "merge",
               "rebase", "status", "log", "diff", "add", "init", "up", "down", "exec", "apply", "get", "describe",
               "delete", "restart", "start", "stop", "enable", "disable", "test", "update", "upgrade", "deploy",
               "compose", "login", "logs", "ps", "create", "fetch", "reset", "stash", "tag", "remote", "serve",
               "list", "show", "sync", "store", "retrieve", "consolidate", "restore", "ingest-daily", "validate",
               "distill", "daemon", "mod", "version", "cache", "ci", "lint", "check", "rollout", "scale", "port-forward")
