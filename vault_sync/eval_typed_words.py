"""The wording of ``vault-sync eval typed``: the data tables its generator draws from.

Data only, no logic (:mod:`vault_sync.eval_typed` builds vaults and questions from it). Every
table is shared by the dev and the test seeds: what differs between the splits is which
entries a seed draws, how they combine, and every page and question built from them.

``{c}`` in a string is the component's name (``payment worker``), ``{C}`` the same with a
capital first letter, ``{n}`` a number, ``{date}`` an ISO date. A ``title`` names a page;
``ask`` and ``said`` are how a person asks about a thing without the answer page's title
words (the generator checks that and draws again where a combination would share a word).
"""

from __future__ import annotations

from typing import Any

#: Services the pages are about: ``(name, ticket prefix, what it does)``.
COMPONENTS: tuple[tuple[str, str, str], ...] = (
    ("payment worker", "PAY", "pulls charge requests from the queue and calls the card processor"),
    ("search indexer", "SRCH", "reads catalogue changes and writes them to the listings index"),
    ("billing api", "BILL", "answers invoice and subscription requests from the dashboard"),
    ("auth gateway", "AUTH", "checks every incoming request's token before it reaches a backend"),
    ("notification service", "NOTIF", "fans out push, SMS and in-app messages to customers"),
    ("report exporter", "RPT", "turns the nightly warehouse tables into CSV and PDF reports"),
    ("image resizer", "IMG", "makes thumbnails of uploaded photos in four sizes"),
    ("session store", "SESS", "keeps logged-in state for the web and mobile clients"),
    ("order pipeline", "ORD", "moves an order from checkout through fraud checks to fulfilment"),
    ("email relay", "MAIL", "queues outgoing mail and hands it to the delivery provider"),
    ("flag server", "FLAG", "serves feature toggles to every other service"),
    ("metrics collector", "MET", "scrapes counters from the fleet and forwards them to storage"),
    ("inventory sync", "INV", "copies stock levels from the warehouse system every few minutes"),
    ("checkout frontend", "CHK", "renders the cart and payment pages in the browser"),
    ("ledger writer", "LEDG", "posts every money movement to the ledger exactly once"),
    ("webhook dispatcher", "HOOK", "delivers event callbacks to partner endpoints"),
)

#: Kinds of bug, each with how the bug is titled and told, how people ask about it, and
#: the fixes and causes agents wrote down (the i-th use of a family in a vault takes the
#: i-th fix and cause).
BUGS: tuple[dict[str, Any], ...] = (
    {
        "title": "times out under load",
        "told": [
            "At peak traffic the {c} stops answering and requests time out after 30 s.",
            "Latency climbs from 80 ms to several seconds once load passes about 600 requests a "
            "second.",
            "Callers see gateway timeouts while the hosts sit at low CPU.",
        ],
        "ask": [
            "hangs when traffic peaks",
            "stalls under heavy load",
            "times out at busy hours",
            "gets slow and unresponsive when busy",
        ],
        "fixes": [
            (
                "Raise the connection pool to 64 and cap waits at 5 s",
                "Pool size goes from 10 to 64 per host and a borrower waits at most 5 s before it "
                "fails fast. Measured after the change: p99 stayed below 400 ms at twice the peak.",
            ),
            (
                "Circuit breaker in front of the upstream",
                "A breaker opens after 20 failures in 10 s and sheds calls for 30 s, so a slow "
                "dependency no longer ties up every thread.",
            ),
        ],
        "causes": [
            (
                "Connection pool exhausted by slow upstream calls",
                "Each in-flight call holds one of only 10 pooled connections; when the upstream "
                "slows, the pool drains and every other caller queues behind it.",
            ),
        ],
    },
    {
        "title": "runs out of memory overnight",
        "told": [
            "Resident memory of the {c} grows steadily through the night.",
            "By morning the container is killed by the OOM killer and restarts.",
            "Heap dumps show millions of retained response objects.",
        ],
        "ask": [
            "keeps growing its RAM use until it crashes",
            "gets OOM-killed after a few hours",
            "leaks memory until the pods die",
            "uses more and more RAM until it falls over",
        ],
        "fixes": [
            (
                "Bound the in-process cache with an LRU of 10k entries",
                "The response cache is now an LRU capped at 10,000 entries; resident size levels "
                "off at about 600 MB.",
            ),
            (
                "Recycle each child process every 1,000 jobs",
                "Children exit and are replaced after 1,000 jobs, which caps what any slow "
                "build-up "
                "can reach.",
            ),
        ],
        "causes": [
            (
                "Unbounded dict keeps every upstream response",
                "A module-level dict memoised every upstream answer by URL and never evicted.",
            ),
        ],
    },
    {
        "title": "processes messages twice",
        "told": [
            "Some events are handled two times by the {c}, a few seconds apart.",
            "Duplicates cluster right after a consumer restart or a rebalance.",
            "Customers reported the same notification or charge appearing twice.",
        ],
        "ask": [
            "handles the same event two times",
            "produces duplicates after a restart",
            "double-handles jobs when a consumer restarts",
            "repeats work after a rebalance",
        ],
        "fixes": [
            (
                "Deduplicate by message id in a Redis set",
                "Every consumer records the message id in a Redis set with a 24 h expiry and skips "
                "ids it has seen.",
            ),
            (
                "Acknowledge only after the database commit",
                "The ack moved after the transaction commits; a crash before it now means one "
                "redelivery that the unique key absorbs.",
            ),
        ],
        "causes": [
            (
                "At-least-once delivery with early acks",
                "Acks were sent on receipt, before the work was durable; a crash in between lost "
                "the "
                "record of what was done.",
            ),
            (
                "Rebalance hands partitions over mid-batch",
                "A rebalance reassigns a partition while its old owner is still mid-batch, so both "
                "owners work the same offsets.",
            ),
        ],
    },
    {
        "title": "deadlocks during the nightly batch",
        "told": [
            "The {c} freezes around 02:00 while the nightly batch runs.",
            "The database log shows deadlock victims every few minutes in that window.",
            "Jobs that usually take 20 minutes run for hours or are cancelled.",
        ],
        "ask": [
            "freezes while the overnight job runs",
            "gets stuck waiting on database locks at night",
            "stops making progress in the night job",
            "locks up around 2 am",
        ],
        "fixes": [
            (
                "Take row locks in primary-key order",
                "Every writer sorts the ids it touches and locks them in ascending order, so two "
                "writers can no longer wait on each other in a cycle.",
            ),
            (
                "Split the batch into chunks of 500 rows",
                "The update runs in transactions of 500 rows with a short pause between them.",
            ),
        ],
        "causes": [
            (
                "Two jobs lock the same rows in opposite order",
                "The import walks ids upward while the cleanup walks them downward; they meet in "
                "the middle and wait on each other.",
            ),
        ],
    },
    {
        "title": "serves stale data after updates",
        "told": [
            "After an edit, the {c} keeps showing the old value for up to an hour.",
            "Some users see the change and others do not, depending on the edge node.",
            "Support gets tickets saying that a saved change was lost.",
        ],
        "ask": [
            "shows old values after an edit",
            "returns outdated results after a change",
            "keeps answering with yesterday's numbers",
            "shows changes late or not at all",
        ],
        "fixes": [
            (
                "Purge the CDN key on every write",
                "Each write purges the surrogate key of the object it touched; edges refetch "
                "within "
                "seconds.",
            ),
            (
                "Version the cache keys by schema hash",
                "Keys carry the schema hash, so a deploy that changes the shape starts from an "
                "empty "
                "namespace instead of reading old entries.",
            ),
        ],
        "causes": [
            (
                "Invalidation message dropped during deploys",
                "The purge message is published on a channel that has no subscriber while the "
                "consumers restart, so it is lost.",
            ),
        ],
    },
    {
        "title": "crashes on malformed payloads",
        "told": [
            "A single broken request body brings the {c} process down.",
            "The stack trace ends in the decoder with an index out of range.",
            "After the crash the same message is redelivered and crashes the next replica.",
        ],
        "ask": [
            "dies when a request body is broken",
            "panics on bad JSON from a partner",
            "falls over when it receives garbage input",
            "crashes on a corrupt message",
        ],
        "fixes": [
            (
                "Validate against a schema before decoding",
                "Input is checked against the JSON schema first; anything that does not conform "
                "gets "
                "a 400 and is logged with its first 200 bytes.",
            ),
            (
                "Quarantine unparseable messages to a dead-letter topic",
                "A message that fails to decode goes to a dead-letter topic with the error, so one "
                "poison message no longer takes every replica down in turn.",
            ),
        ],
        "causes": [
            (
                "Decoder trusts the length prefix",
                "The hand-written decoder allocates and indexes by the length the sender claims, "
                "without checking it against the bytes received.",
            ),
        ],
    },
    {
        "title": "shows wrong times around DST",
        "told": [
            "Twice a year the {c} prints times one hour off.",
            "Scheduled jobs run an hour late in spring and twice in autumn.",
            "Only users outside UTC notice it.",
        ],
        "ask": [
            "is off by an hour after the clocks change",
            "schedules jobs an hour late in spring",
            "prints times shifted by sixty minutes twice a year",
            "gets the hour wrong when summer time starts",
        ],
        "fixes": [
            (
                "Store instants in UTC and convert at the edge",
                "Every timestamp is kept as a UTC instant; conversion to the reader's zone happens "
                "only when rendering.",
            ),
            (
                "Use zoneinfo for every schedule",
                "Schedules are computed with zoneinfo rules for the named zone instead of a fixed "
                "offset.",
            ),
        ],
        "causes": [
            (
                "Naive local datetimes in the scheduler",
                "The scheduler adds 24 hours to naive local datetimes, which is wrong on the two "
                "days a year with 23 or 25 hours.",
            ),
        ],
    },
    {
        "title": "fills the disk with logs",
        "told": [
            "The {c} writes about 40 GB of logs a day to the local volume.",
            "When the volume reaches 100 % every write fails and the service stops.",
            "Most of the lines are debug output of the request handler.",
        ],
        "ask": [
            "runs out of storage space",
            "hits a full volume and writes start failing",
            "eats all the free space on its host",
            "uses up the local storage after a week",
        ],
        "fixes": [
            (
                "Rotate files daily and keep seven",
                "logrotate now compresses yesterday's file and keeps seven; the volume stays under "
                "30 % full.",
            ),
            (
                "Ship traces to the collector instead of local files",
                "Output goes to stdout and on to the central collector; nothing is kept on the "
                "host.",
            ),
        ],
        "causes": [
            (
                "Debug verbosity left on in production",
                "A troubleshooting change set the level to DEBUG and was never reverted.",
            ),
        ],
    },
    {
        "title": "takes minutes to start",
        "told": [
            "A fresh instance of the {c} needs about ten minutes before it serves traffic.",
            "Readiness checks fail during deploys and the rollout stalls.",
            "Start-up time doubled over the last quarter.",
        ],
        "ask": [
            "boots very slowly after a deploy",
            "needs ten minutes before it serves traffic",
            "is slow to come up and fails readiness checks",
            "starts so slowly that rollouts stall",
        ],
        "fixes": [
            (
                "Load the model lazily on first request",
                "The large lookup table is read on first use instead of at import; an instance is "
                "ready in 20 s.",
            ),
            (
                "Warm the index from a snapshot",
                "Instances copy a nightly snapshot instead of rebuilding from the database.",
            ),
        ],
        "causes": [
            (
                "Full table scan at boot",
                "Initialisation reads every row of a table that grew to 40 million rows.",
            ),
        ],
    },
    {
        "title": "rejects valid tokens",
        "told": [
            "Users with good credentials get 401 answers from the {c}.",
            "It happens in bursts of a few minutes, then stops on its own.",
            "Logging in again usually works.",
        ],
        "ask": [
            "refuses logins that should work",
            "returns 401 for users with good credentials",
            "logs people out at random",
            "denies access to people who are signed in",
        ],
        "fixes": [
            (
                "Allow 60 seconds of clock skew in token checks",
                "Expiry and not-before checks accept 60 s of leeway between hosts.",
            ),
            (
                "Fetch signing keys every hour and on unknown kid",
                "The JWKS document is refreshed hourly and whenever a token names a key id the "
                "cache does not hold.",
            ),
        ],
        "causes": [
            (
                "Key rotation not propagated to replicas",
                "New signing keys reach replicas only on restart, so tokens signed with the new "
                "key "
                "fail on old replicas.",
            ),
        ],
    },
    {
        "title": "retry storm after outages",
        "told": [
            "When the upstream recovers, every replica of the {c} retries at the same instants.",
            "The synchronised wave knocks the upstream over again, several times in a row.",
            "A four-minute outage turned into forty minutes of failures.",
        ],
        "ask": [
            "hammers the upstream again as soon as it recovers",
            "floods the provider with repeated calls after downtime",
            "knocks the dependency over in waves after an incident",
            "keeps re-sending everything at once after an outage",
        ],
        "fixes": [
            (
                "Full jitter and a per-replica budget",
                "Sleeps are random between 0 and min(30 s, 1 s x 2^n), and repeats may add at most "
                "10 % to the request rate.",
            ),
            (
                "Honour Retry-After and back off exponentially",
                "A 429 or 503 answer's Retry-After header is obeyed; otherwise delays double from "
                "one second.",
            ),
        ],
        "causes": [
            (
                "Synchronised fixed delays across replicas",
                "All replicas use the same fixed schedule of 1, 2, 4 and 8 s, so they fire "
                "together.",
            ),
        ],
    },
    {
        "title": "loads slowly for large accounts",
        "told": [
            "Pages of the {c} take several seconds for accounts with thousands of items.",
            "Small accounts are unaffected.",
            "The database shows hundreds of tiny queries per page view.",
        ],
        "ask": [
            "is sluggish for big customers",
            "takes seconds to render for accounts with many items",
            "gets slower the more orders a customer has",
            "crawls for the largest tenants",
        ],
        "fixes": [
            (
                "Batch the lookups into one query per page",
                "Related rows are fetched with one IN query per page instead of one per item.",
            ),
            (
                "Covering index on account_id and created_at",
                "The listing query is served from the index alone; 3 s became 40 ms.",
            ),
        ],
        "causes": [
            (
                "One query per item (N+1)",
                "The template touches a relation inside a loop, which issues one query per row.",
            ),
        ],
    },
)

#: Topics of decisions that get superseded: how people ask about them (``ask``), the first
#: decision's titles and text (which share the asking words), later decisions' titles and
#: text (which do not), and what the first decision said (``said``, for "is it still true").
POLICIES: tuple[dict[str, Any], ...] = (
    {
        "ask": ["retries", "retrying failed calls", "how many times we retry"],
        "old": ["{C} retry policy", "Retry failed {c} calls five times"],
        "old_text": "The {c} retries every failed call up to five times with a fixed two-second "
        "delay between retries. This retry policy applies to every outbound call.",
        "said": [
            "the {c} retries failed calls five times",
            "{c} calls are retried with a fixed delay",
        ],
        "new": [
            "Three attempts with full jitter",
            "Jittered backoff capped at thirty seconds",
            "Attempt budget of ten percent per replica",
        ],
        "new_text": "At most three attempts per call; each sleep is random between zero and "
        "min(30 s, 2^attempt s). Replaces the fixed delay after the last incident.",
    },
    {
        "ask": ["caching", "how long we cache responses", "cache expiry"],
        "old": ["{C} cache TTL", "Cache {c} responses for a day"],
        "old_text": "Responses of the {c} are cached for 24 hours. The cache TTL is one day for "
        "every endpoint; clear the cache by hand after a data fix.",
        "said": [
            "{c} responses are cached for a whole day",
            "the {c} cache keeps entries 24 hours",
        ],
        "new": [
            "Five-minute freshness with background refresh",
            "Stale-while-revalidate at five minutes",
        ],
        "new_text": "Entries are fresh for five minutes and refreshed in the background while the "
        "old copy is served; nothing is stored longer than an hour.",
    },
    {
        "ask": ["deploys", "when we can ship to production", "release timing"],
        "old": ["{C} deploy window", "Deploy the {c} only on Tuesdays"],
        "old_text": "The {c} is deployed to production on Tuesdays between 10:00 and 12:00 only. "
        "No deploy outside the window without the release manager.",
        "said": ["the {c} is only deployed on Tuesdays", "{c} deploys wait for the Tuesday window"],
        "new": [
            "Ship any weekday before 15:00 behind a canary",
            "Continuous delivery with canaries",
            "Merge means live within the hour",
        ],
        "new_text": "Every merged change goes out the same day through a 5 % canary; rollbacks "
        "are automatic when the error budget burns fast. Fridays after 15:00 stay quiet.",
    },
    {
        "ask": ["log retention", "how long we keep logs", "keeping logs"],
        "old": ["{C} log retention", "Keep {c} logs for a year"],
        "old_text": "Logs of the {c} are kept for one year in the hot store so that any log "
        "line can be searched. The log retention is 365 days.",
        "said": ["{c} logs are kept for a year", "we keep a year of {c} logs searchable"],
        "new": ["Thirty days hot, then cold storage", "Two weeks searchable and a year archived"],
        "new_text": "Thirty days stay searchable; after that the files move to cold object "
        "storage and are deleted at 13 months, as the privacy review asked.",
    },
    {
        "ask": ["code review", "how many approvals a change needs", "reviewing changes"],
        "old": ["{C} code review rules", "Two approvals for every {c} change"],
        "old_text": "Every change to the {c} needs two approvals from code owners before merge. "
        "Code review may not be skipped, even for a one-line change.",
        "said": ["every {c} change needs two approvals", "{c} changes require two reviewers"],
        "new": ["One approver plus green CI", "Single sign-off with required checks"],
        "new_text": "One owner's sign-off and a green pipeline are enough; risky areas listed in "
        "CODEOWNERS still ask for a second pair of eyes.",
    },
    {
        "ask": ["schema migrations", "changing the database schema", "database migrations"],
        "old": ["{C} migration policy", "Run {c} migrations during downtime"],
        "old_text": "Database migrations of the {c} run in a maintenance window with the service "
        "stopped. Announce the downtime a week before every schema migration.",
        "said": ["{c} migrations need downtime", "the {c} is stopped for schema changes"],
        "new": ["Expand and contract in separate releases", "Online DDL in two phases"],
        "new_text": "Add the new column or table first, backfill, switch reads, and drop the old "
        "one a release later; nothing stops the service.",
    },
    {
        "ask": ["on-call", "who gets paged", "the pager rota"],
        "old": ["{C} on-call rota", "One person pages for the {c} all week"],
        "old_text": "One engineer is on call for the {c} for a whole week and gets every page, "
        "day and night. The on-call rota changes on Mondays.",
        "said": [
            "one engineer is on call for the {c} all week",
            "the {c} pager stays with one person for a week",
        ],
        "new": [
            "Follow-the-sun handoff between Berlin and Austin",
            "Twelve-hour shifts across two offices",
        ],
        "new_text": "Berlin holds the pager from 07:00 to 19:00 CET and Austin the other half; "
        "nobody is woken at night except for sev1.",
    },
    {
        "ask": ["feature flags", "cleaning up flags", "how long flags stay"],
        "old": ["{C} flag policy", "Keep {c} flags until the next major version"],
        "old_text": "Feature flags of the {c} stay in the code until the next major version, "
        "so any feature can be switched off. The flag policy allows unlimited flags.",
        "said": ["{c} flags stay until the next major version", "we keep old {c} flags around"],
        "new": [
            "Delete toggles within two sprints of full rollout",
            "Toggles expire after 30 days",
        ],
        "new_text": "A toggle is deleted within two sprints of reaching 100 %; the linter fails "
        "the build for any toggle older than 30 days without an owner.",
    },
    {
        "ask": ["backups", "how often we snapshot data", "backing up data"],
        "old": ["{C} backup schedule", "Nightly full backups of the {c}"],
        "old_text": "The {c} database gets a full backup every night at 01:00. The backup "
        "schedule keeps 14 nightly backups.",
        "said": ["the {c} is backed up once a night", "{c} backups are nightly full copies"],
        "new": [
            "Hourly incremental snapshots with weekly restore drills",
            "Point-in-time recovery from the WAL archive",
        ],
        "new_text": "Incremental snapshots every hour plus a continuous WAL archive; a restore "
        "is rehearsed every Thursday and timed.",
    },
    {
        "ask": ["API versioning", "breaking changes to the API", "versioning the API"],
        "old": ["{C} API versioning", "Version the {c} API in the URL"],
        "old_text": "The {c} API carries its version in the URL path (/v1/, /v2/). API "
        "versioning by path lets old clients keep working.",
        "said": ["the {c} API version goes in the URL", "{c} API versions are URL paths"],
        "new": [
            "Header-selected revisions with a six-month sunset",
            "Dated revisions chosen per request",
        ],
        "new_text": "Clients pick a dated revision with a request header; each revision is "
        "supported six months after its successor ships.",
    },
    {
        "ask": ["secret rotation", "how often we rotate credentials", "rotating passwords"],
        "old": ["{C} secret rotation", "Rotate {c} credentials yearly"],
        "old_text": "Credentials of the {c} are rotated once a year by hand. Secret rotation "
        "is tracked in the yearly security checklist.",
        "said": ["{c} credentials are rotated once a year", "we rotate {c} secrets yearly"],
        "new": [
            "Short-lived tokens from the broker, renewed hourly",
            "Hour-long leases instead of static keys",
        ],
        "new_text": "Services fetch tokens that live one hour from the broker at start and renew "
        "them; no static key is left in config.",
    },
    {
        "ask": ["alerting", "when alerts fire", "alert thresholds"],
        "old": ["{C} alert thresholds", "Page when the {c} error rate passes one percent"],
        "old_text": "Alert when the {c} error rate passes 1 % for five minutes. Alert thresholds "
        "are reviewed every quarter.",
        "said": ["the {c} pages at a one percent error rate", "{c} alerting fires at 1 % errors"],
        "new": ["Burn-rate paging on the monthly budget", "Multi-window SLO burn paging"],
        "new_text": "Pages fire when the 30-day budget burns 14 times too fast over an hour, or "
        "6 times over six hours; tickets for slower burns.",
    },
)

#: Rules that a later observation contradicts: the rule's title and text, how people ask
#: whether it still holds (``said``), and the challenger's title and text (its ``{n}`` an
#: observation number).
RULES: tuple[dict[str, Any], ...] = (
    {
        "title": "Always restart the {c} after a config change",
        "text": "Any config change to the {c} needs a full restart; reload is not supported.",
        "said": [
            "the {c} must be restarted whenever its config changes",
            "a config edit needs a restart of the {c}",
        ],
        "obs": "OBS-{n} settings reload live on SIGHUP",
        "obs_text": "Since release 4.2 the service rereads its settings on SIGHUP; we did it ten "
        "times in staging and twice in production without dropping a request.",
    },
    {
        "title": "Never cache {c} responses",
        "text": "Responses of the {c} must never be cached anywhere: they are personal.",
        "said": ["caching {c} responses is forbidden", "we may not cache anything from the {c}"],
        "obs": "OBS-{n} short memoization halved p99 latency",
        "obs_text": "Memoizing the public, non-personal lookups for 30 s halved p99 latency and "
        "leaked nothing: the personal fields are never stored.",
    },
    {
        "title": "The {c} must run as a single replica",
        "text": "Only one copy of the {c} may run at a time, or work is done twice.",
        "said": ["the {c} can only run as one instance", "the {c} cannot scale out"],
        "obs": "OBS-{n} three copies ran safely behind a leader lease",
        "obs_text": "With the lease in etcd, three copies ran for two weeks; only the holder "
        "does work and failover took four seconds.",
    },
    {
        "title": "Batch {c} writes hourly",
        "text": "Writes of the {c} are collected and flushed once an hour to spare the database.",
        "said": ["{c} writes are batched once an hour", "the {c} flushes its writes hourly"],
        "obs": "OBS-{n} streaming inserts kept up with peak volume",
        "obs_text": "Sending rows as they come kept up with peak volume at 3 % database CPU; "
        "the hourly spike disappeared.",
    },
    {
        "title": "Use random UUIDs for {c} ids",
        "text": "Every record of the {c} gets a random UUIDv4 as its primary key.",
        "said": ["{c} records get random UUIDs", "the {c} uses UUIDv4 identifiers"],
        "obs": "OBS-{n} time-ordered keys halved index bloat",
        "obs_text": "ULIDs sort by creation time; inserts stopped splitting pages and the primary "
        "index shrank by half.",
    },
    {
        "title": "Disable swap on {c} hosts",
        "text": "Machines running the {c} have swap turned off.",
        "said": ["swap is turned off on the machines running the {c}", "{c} hosts have no swap"],
        "obs": "OBS-{n} a small zram area prevented OOM kills",
        "obs_text": "A 2 GB compressed zram area absorbed the short spikes that used to get "
        "processes killed, with no measurable latency cost.",
    },
    {
        "title": "Run {c} load tests only on staging",
        "text": "Load tests of the {c} run on the staging copy, never against production.",
        "said": [
            "load tests of the {c} are limited to staging",
            "the {c} is load tested on staging only",
        ],
        "obs": "OBS-{n} shadow traffic caught what the copy missed",
        "obs_text": "Mirroring 5 % of live requests to a dark production pool found two limits "
        "the scaled-down copy never showed.",
    },
    {
        "title": "Keep {c} payloads under 1 MB",
        "text": "Requests to the {c} larger than 1 MB are refused.",
        "said": [
            "there is a one megabyte cap on {c} payloads",
            "{c} requests over 1 MB are refused",
        ],
        "obs": "OBS-{n} chunked uploads handle 50 MB files",
        "obs_text": "Multipart chunks of 4 MB each carried 50 MB files through without memory "
        "growth; partners asked for it.",
    },
    {
        "title": "Send {c} messages synchronously",
        "text": "The {c} sends its messages inline, inside the request, so a failure is visible.",
        "said": [
            "the {c} sends messages inline in the request",
            "{c} messages go out synchronously",
        ],
        "obs": "OBS-{n} a background queue cut request time by 400 ms",
        "obs_text": "Handing delivery to a worker queue cut request time by 400 ms, and failed "
        "deliveries now show up on the dashboard.",
    },
    {
        "title": "Pin the {c} to one availability zone",
        "text": "The {c} runs in a single availability zone to keep latency to its database low.",
        "said": ["the {c} runs in a single availability zone", "the {c} is pinned to one zone"],
        "obs": "OBS-{n} cross-region spread added only 2 ms",
        "obs_text": "Spreading instances over three datacentres added 2 ms at p50 and survived "
        "the March outage of eu-west-1b.",
    },
)

#: Question wordings, by group. ``{x}`` is what is asked about: a bug's symptom, a topic,
#: what a rule or old decision said.
ASK_FIX = (
    "how do we fix it when the {c} {x}?",
    "the {c} {x} - how do we solve that?",
    "what did we do about the {c} that {x}?",
    "{c} {x}: what's the remedy?",
    "how was the problem where the {c} {x} resolved?",
    "what should I do if the {c} {x}?",
    "is there a known fix for when the {c} {x}?",
    "we saw the {c} {x} again, what's the cure?",
    "what change made the {c} stop misbehaving? it {x}",
    "how did we repair the {c} after it {x}?",
)
ASK_CAUSE = (
    "why is it that the {c} {x}?",
    "what is behind it when the {c} {x}?",
    "root cause question: the {c} {x}. why?",
    "what makes the {c} misbehave like this: it {x}",
    "do we know the reason the {c} {x}?",
    "where does it come from when the {c} {x}?",
)
ASK_CURRENT = (
    "what is our current policy on {x} for the {c}?",
    "how do we handle {x} in the {c} these days?",
    "which rule applies to {x} of the {c} today?",
    "what's the latest decision about {x} for the {c}?",
    "what do we do now about {x} in the {c}?",
    "remind me of the {c} approach to {x}",
    "{x} for the {c}: what's the standing decision?",
    "what did we settle on for {x} in the {c}?",
)
ASK_STILL = (
    "is it still true that {x}?",
    "{x} - is that still the case?",
    "does the old rule that {x} still hold?",
    "can I assume {x}?",
    "someone told me {x}; still right?",
    "is it correct that {x}?",
    "do we still go by this: {x}?",
)

#: Everyday runbooks of a component (control questions ask for them by their own words).
RUNBOOKS = (
    "Restart the {c}",
    "Scale the {c} out",
    "Roll back a {c} deploy",
    "Drain a {c} host",
    "Read the {c} dashboards",
)
#: Sentences of meeting notes and journal pages, the distractors that share the vocabulary.
NOTE_LINES = (
    "Talked about the {c} and whether its {x} still makes sense.",
    "Someone asked again why the {c} {y}; nobody had the page at hand.",
    "Action: read up on {x} before the next planning.",
    "The {c} dashboard looked fine all week.",
    "We might revisit {x} for the {c} next quarter.",
    "Reminder: the {c} owners meet on Thursdays.",
    "A customer mentioned that the {c} {y} last month.",
    "Budget for the {c} stays flat.",
)
AGENTS = ("claude", "codex", "gemini", "cursor")
