"""The invented world the knowledge benchmark talks about: entities, the things said about them, filler lines.

Every value string is unique across the world (a value names its fact when a result is matched by value),
except where a topic returns to an earlier value on purpose ("moved CI back to GitHub Actions").
Nothing here is copied from a public benchmark.
"""
from __future__ import annotations

from dataclasses import dataclass

# kinds of entity; only those in ASKED get a "what do we know about …" question
PERSON, PROJECT, REPO, VENDOR, PLACE, TOOL = "person", "project", "repo", "vendor", "place", "tool"
ASKED = (PERSON, PROJECT, REPO, VENDOR)


@dataclass(frozen=True)
class Entity:
    name: str      # as people write it: "Alice Chen", "王芳", "acme/atlas-api"
    kind: str
    handle: str    # the @mention of a Retain line
    category: str  # where a store call files facts about it
    lang: str = "en"


@dataclass(frozen=True)
class Topic:
    """One thing about an entity that is told, restated and (when `changes` > 1) changed over time."""

    key: str
    entity: str                # Entity.name
    values: tuple[str, ...]    # candidate values, each unique in the world
    say: tuple[str, ...]       # the owner tells it directly in chat ({v}: the value)
    hint: tuple[str, ...]      # the owner tells it in passing
    note: str                  # its Retain line in a daily note
    store: str                 # the text an MCP / CLI store call gives
    echo: str                  # the agent repeating it back
    ask: str                   # the question ("… now?" when it changes)
    changes: int = 1           # most versions it may have (1: never changes)
    ordered: bool = False      # versions take the values in order (Postgres 15 → 16)
    revert: bool = False       # with 3 versions the third returns to the first value
    lang: str = "en"


ENTITIES = (
    Entity("Alice Chen", PERSON, "alice-chen", "people"),
    Entity("Bob Martinez", PERSON, "bob-martinez", "people"),
    Entity("Priya Natarajan", PERSON, "priya", "people"),
    Entity("Tom Becker", PERSON, "tom-becker", "people"),
    Entity("王芳", PERSON, "王芳", "people", "zh"),
    Entity("李娜", PERSON, "李娜", "people", "zh"),
    Entity("张伟", PERSON, "张伟", "people", "zh"),
    Entity("Project Atlas", PROJECT, "atlas", "projects"),
    Entity("Project Orion", PROJECT, "orion", "projects"),
    Entity("acme/atlas-api", REPO, "atlas-api", "projects"),
    Entity("acme/orion-web", REPO, "orion-web", "projects"),
    Entity("Brightline Accounting", VENDOR, "brightline", "vendors"),
    Entity("Kestrel Cleaning", VENDOR, "kestrel", "vendors"),
    Entity("home", PLACE, "home", "home"),
    Entity("my tools", TOOL, "tools", "tools"),
)

TOPICS = (
    Topic("garage-code", "home", ("4417", "9931", "2208", "6150"),
          ("Remember that the garage code is now {v}.", "Heads up: the garage code changed to {v}."),
          ("The landlord reset the garage keypad this morning, it takes {v} now.",),
          "W @home: Garage code is {v}.", "Garage door code: {v}", "Got it, garage code {v}.",
          "What is the garage code now?", changes=3),
    Topic("atlas-ci", "acme/atlas-api", ("GitHub Actions", "Buildkite", "CircleCI"),
          ("We switched the CI for atlas-api to {v}.", "atlas-api builds run on {v} from now on."),
          ("Moved the atlas-api pipeline over to {v} yesterday, so far so good.",),
          "W @atlas-api: CI for atlas-api runs on {v}.", "atlas-api CI: {v}", "Noted: atlas-api CI is on {v}.",
          "Which CI does atlas-api use now?", changes=3, revert=True),
    Topic("atlas-repo", "acme/atlas-api", ("github.com/acme/atlas-api",),
          ("Remember, the Atlas backend code lives at {v}.",), ("I pushed the Atlas fixes to {v} tonight.",),
          "W @atlas-api: The atlas-api repo is {v}.", "atlas-api repository: {v}", "Okay, the repo is {v}.",
          "Where is the atlas-api repository?"),
    Topic("atlas-launch", "Project Atlas", ("June 3", "June 17", "July 1", "July 15"),
          ("The Atlas launch review is on {v}.", "We moved the Atlas launch review to {v}."),
          ("Priya pushed the Atlas review again, it's {v} now.",),
          "W @atlas: Atlas launch review on {v}.", "Atlas launch review date: {v}",
          "Calendar updated: Atlas review {v}.",
          "When is the Atlas launch review now?", changes=3, ordered=True),
    Topic("atlas-db", "Project Atlas", ("Postgres 15", "Postgres 16", "Postgres 17"),
          ("Atlas runs on {v} now.",), ("Finished the Atlas database upgrade to {v}, no downtime.",),
          "W @atlas: Atlas database is {v}.", "Atlas DB version: {v}", "Noted, Atlas is on {v}.",
          "Which Postgres version does Atlas run now?", changes=2, ordered=True),
    Topic("orion-hosting", "Project Orion", ("Hetzner", "DigitalOcean", "Fly.io"),
          ("Project Orion is hosted on {v} now.", "We moved Orion's servers to {v}."),
          ("Signed the contract with {v} for the Orion servers today.",),
          "W @orion: Project Orion is hosted on {v}.", "Orion hosting provider: {v}", "Okay, Orion runs on {v}.",
          "Who hosts Project Orion now?", changes=2),
    Topic("orion-region", "Project Orion", ("eu-central-1", "us-east-2", "ap-southeast-1"),
          ("Orion's production region is {v} now.",), ("We finished the Orion migration to {v} last night.",),
          "W @orion: Orion production region is {v}.", "Orion prod region: {v}", "Understood, Orion prod is in {v}.",
          "Which region is Orion production in now?", changes=2),
    Topic("orion-web-repo", "acme/orion-web", ("github.com/acme/orion-web",),
          ("The Orion frontend lives in {v}.",), ("Opened a pull request on {v} for the login page.",),
          "W @orion-web: The Orion frontend repo is {v}.", "orion-web repository: {v}", "Got it, {v}.",
          "Where is the Orion frontend repository?"),
    Topic("orion-web-node", "acme/orion-web", ("Node 20", "Node 22"),
          ("orion-web is on {v} now.",), ("Bumped orion-web to {v}, the build is green.",),
          "W @orion-web: orion-web runs on {v}.", "orion-web Node version: {v}", "Noted, orion-web uses {v}.",
          "Which Node version does orion-web use now?", changes=2, ordered=True),
    Topic("office-address", "home", ("12 Elm Street", "48 Harbour Road", "7 Quay Lane"),
          ("Our office address is now {v}.",), ("First day in the new office at {v}, the coffee is better.",),
          "W @home: Office address is {v}.", "Office address: {v}", "Updated the office address to {v}.",
          "What is the office address now?", changes=2),
    Topic("brightline-fee", "Brightline Accounting", ("€180 a month", "€220 a month", "€250 a month"),
          ("Brightline Accounting charges {v} now.",), ("Got the new Brightline invoice, {v} from this quarter.",),
          "W @brightline: Brightline Accounting fee is {v}.", "Brightline fee: {v}", "Noted, Brightline is {v}.",
          "How much does Brightline Accounting charge now?", changes=2, ordered=True),
    Topic("brightline-contact", "Brightline Accounting", ("Hannah Okafor", "Marcus Lindqvist", "Sofia Duarte"),
          ("Our contact at Brightline Accounting is {v} now.",),
          ("{v} from Brightline emailed about the VAT return, our account is with them now.",),
          "W @brightline: Brightline contact is {v}.", "Brightline contact person: {v}",
          "Okay, {v} is the Brightline contact.", "Who is our contact at Brightline Accounting now?", changes=2),
    Topic("kestrel-day", "Kestrel Cleaning", ("Wednesday mornings", "Friday afternoons", "Monday evenings"),
          ("Kestrel Cleaning comes on {v} now.",), ("Kestrel asked to switch the cleaning to {v}.",),
          "W @kestrel: Kestrel Cleaning visits on {v}.", "Kestrel Cleaning schedule: {v}",
          "Got it, cleaning on {v}.", "When does Kestrel Cleaning come now?", changes=2),
    Topic("mail", "my tools", ("Fastmail", "Proton Mail", "Zoho Mail"),
          ("We moved our email to {v}.",), ("Finished exporting the old mailboxes, everything is on {v}.",),
          "W @tools: Email provider is {v}.", "Email provider: {v}", "Noted, email is on {v}.",
          "Which email provider do we use now?", changes=2),
    Topic("editor", "my tools", ("VS Code", "Neovim", "Zed"),
          ("I switched my editor to {v}.",), ("Spent the evening tuning my {v} config.",),
          "W @tools: My editor is {v}.", "Editor of choice: {v}", "Nice, {v} it is.",
          "Which editor do I use now?", changes=2),
    Topic("alice-role", "Alice Chen", ("tech lead of Atlas", "head of platform", "VP of engineering"),
          ("Alice Chen is {v} now.",), ("Alice got promoted, she is {v} as of today.",),
          "W @alice-chen: Alice Chen is {v}.", "Alice Chen role: {v}", "Good to know, Alice is {v}.",
          "What is Alice Chen's role now?", changes=2, ordered=True),
    Topic("alice-1on1", "Alice Chen", ("Tuesdays at 10:00", "Thursdays at 14:30", "Mondays at 16:00"),
          ("My weekly 1:1 with Alice Chen is on {v} now.",), ("Alice asked to move our 1:1 to {v}.",),
          "W @alice-chen: Weekly 1:1 with Alice Chen on {v}.", "1:1 with Alice Chen: {v}",
          "Calendar updated: 1:1 with Alice on {v}.", "When is my weekly 1:1 with Alice Chen now?", changes=2),
    Topic("alice-pref", "Alice Chen", ("async updates in Slack",),
          ("Remember that Alice Chen prefers {v}.",), ("Alice said again she likes {v} better than meetings.",),
          "W @alice-chen: Alice Chen prefers {v}.", "Alice Chen preference: {v}", "Noted, Alice prefers {v}.",
          "How does Alice Chen like to get updates?"),
    Topic("bob-allergy", "Bob Martinez", ("peanuts",),
          ("Please remember Bob Martinez is allergic to {v}.",),
          ("Ordered lunch for Bob, no {v} because of his allergy.",),
          "W @bob-martinez: Bob Martinez is allergic to {v}.", "Bob Martinez allergy: {v}",
          "I'll remember Bob is allergic to {v}.", "What is Bob Martinez allergic to?"),
    Topic("bob-team", "Bob Martinez", ("the billing team", "the search team", "the data team"),
          ("Bob Martinez moved to {v}.",), ("Bob starts with {v} on Monday.",),
          "W @bob-martinez: Bob Martinez is on {v}.", "Bob Martinez team: {v}", "Okay, Bob is on {v}.",
          "Which team is Bob Martinez on now?", changes=2),
    Topic("priya-birthday", "Priya Natarajan", ("14 August",),
          ("Priya Natarajan's birthday is on {v}.",), ("Need a present for Priya, her birthday is {v}.",),
          "W @priya: Priya Natarajan's birthday is {v}.", "Priya Natarajan birthday: {v}",
          "I'll remind you before {v}.", "When is Priya Natarajan's birthday?"),
    Topic("priya-city", "Priya Natarajan", ("Bangalore", "Pune", "Lisbon"),
          ("Priya Natarajan relocated to {v}.",), ("Priya is working from {v} from now on.",),
          "W @priya: Priya Natarajan is based in {v}.", "Priya Natarajan location: {v}", "Noted, Priya is in {v}.",
          "Where is Priya Natarajan based now?", changes=2),
    Topic("tom-call", "Tom Becker", ("March 12", "March 19", "March 26"),
          ("The contract call with Tom Becker is on {v}.",), ("Tom Becker can only do the contract call on {v}.",),
          "W @tom-becker: Contract call with Tom Becker on {v}.", "Tom Becker contract call: {v}",
          "Calendar updated: Tom Becker call {v}.", "When is the contract call with Tom Becker now?", changes=3,
          ordered=True),
    Topic("tom-work", "Tom Becker", ("our trademark filing",),
          ("Tom Becker handles {v}.",), ("Sent Tom Becker the papers for {v}.",),
          "W @tom-becker: Tom Becker handles {v}.", "Tom Becker handles: {v}", "Okay, Tom handles {v}.",
          "What does Tom Becker handle for us?"),
    Topic("wangfang-city", "王芳", ("上海", "深圳", "杭州"),
          ("记住，王芳现在在{v}工作。", "王芳搬到{v}了。"), ("王芳说她下个月开始在{v}上班。",),
          "W @王芳: 王芳现在在{v}。", "王芳所在城市：{v}", "好的，王芳在{v}。",
          "王芳现在在哪个城市？", changes=2, lang="zh"),
    Topic("lina-work", "李娜", ("支付系统", "搜索服务", "推荐引擎"),
          ("李娜现在负责{v}。",), ("李娜这周开始接手{v}了。",),
          "W @李娜: 李娜负责{v}。", "李娜负责：{v}", "明白，李娜负责{v}。",
          "李娜现在负责什么？", changes=2, lang="zh"),
    Topic("zhangwei-work", "张伟", ("Orion的前端",),
          ("记住，张伟负责{v}。",), ("张伟今天又修了{v}的几个问题。",),
          "W @张伟: 张伟负责{v}。", "张伟负责：{v}", "好的，张伟负责{v}。",
          "张伟负责什么？", lang="zh"),
)

ENTITY_ASK = {"en": ("What do we know about {name}?", "Tell me about {name}.", "What's the latest on {name}?"),
              "zh": ("关于{name}我们知道什么？",)}

# Owner and agent lines that carry nothing worth keeping (the low-value turns)
FILLER_USER = {"en": ("Morning!", "Thanks!", "Thanks, that helps.", "How's it going?", "Ok cool.",
                      "Let's pick this up tomorrow.", "Nice work.", "Haha, fair enough.",
                      "I'm heading out for lunch.", "Long day, talk later.", "Sounds good to me.",
                      "Perfect, thank you!"),
               "zh": ("早上好！", "谢谢！", "好的，明天再说。", "辛苦了。")}
FILLER_AGENT = {"en": ("Good lesson. I'll avoid repeating that.", "Happy to help!", "Sounds good.", "You're welcome!",
                       "Got it.", "Noted.", "Anytime, enjoy your lunch!", "Good morning! What are we working on today?",
                       "Sure, I'll keep that in mind.", "Understood.", "Talk soon!", "Great, glad that worked out."),
                "zh": ("不客气！", "好的，记住了。", "没问题。")}
# Filler that shares words with the questions, so a filter, not luck, keeps it out of a top 5
FILLER_TOPICAL = {"user": ("Thanks for sorting out the garage thing!", "Let's talk about Orion tomorrow.",
                           "The Atlas meeting ran long again.", "Remind me about the Brightline stuff later.",
                           "No news on the CI front today.", "Still need to think about the office plants.",
                           "The cleaning was fine this week, nothing to report."),
                  "assistant": ("Sure, we can go over the Orion hosting tomorrow.",
                                "Happy to help with the Atlas review whenever you're ready.",
                                "Good lesson. I'll avoid repeating that on the CI.",
                                "No problem, the code question can wait.")}
# Small talk that names an entity but states none of its facts
CHATTER = ("Had coffee with {name} today, nice chat.", "{name} says hi.", "Ran into {name} at the station.",
           "{name} sent a funny meme to the group.")
CHATTER_ZH = ("今天和{name}一起吃了午饭。", "{name}问你好。")
# Lines of a daily note's log section, and opinions (O(c=…)) on its Retain list: kept by notes, never asked about
NOTE_LOG = ("Quiet day, mostly code review.", "Worked through the Atlas ticket backlog.", "Inbox zero by noon.",
            "Long planning meeting, nothing decided.", "Read up on CRDTs in the evening.")
NOTE_OPINIONS = ("O(c=0.6) @atlas: The Atlas launch will probably slip again.",
                 "O(c=0.7) @orion: The Orion frontend needs a design pass before launch.",
                 "O(c=0.8) @brightline: Brightline Accounting is reliable but slow to answer.",
                 "B @home: Fixed the leaking tap in the kitchen myself.")
REMIND = {"en": ("Just a reminder: {s}", "As I said before: {s}", "Don't forget: {s}"),
          "zh": ("再提醒一下：{s}",)}


def entity(name: str) -> Entity:
    return next(e for e in ENTITIES if e.name == name)
