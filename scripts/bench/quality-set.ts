/**
 * Labelled retrieval set for scripts/bench/quality.ts: target memories (the kind of facts an agent
 * keeps: preferences, decisions, project facts, corrections, people) each with one query that
 * asks for it in other words. `kind` says how the query relates to its target:
 *
 *  - overlap:  a paraphrase sharing at least one content word with the target;
 *  - semantic: a paraphrase sharing no query term with the target (only meaning connects them);
 *  - keyword:  an identifier, code or name that appears in the target (often unknown to the model).
 *
 * quality.ts checks the labels against the actual term overlap and says if one is wrong.
 * The distractors are synthetic (synthetic.ts) and use the same topics on purpose.
 */
import type { MemoryType } from "../../src/domain/memory";

export type QueryKind = "overlap" | "semantic" | "keyword";

export interface QualityCase {
  id: string;
  memory_type: MemoryType;
  content: string;
  query: string;
  kind: QueryKind;
}

const c = (id: string, memory_type: MemoryType, content: string, query: string, kind: QueryKind): QualityCase => ({ id, memory_type, content, query, kind });

export const QUALITY_SET: QualityCase[] = [
  // --- preferences ---------------------------------------------------------------------------------
  c("pref-01", "preference", "The user prefers dark mode in all editors and terminals.", "what color scheme should the IDE use", "semantic"),
  c("pref-02", "preference", "Commit messages must use the imperative mood with a subject line under 72 characters.", "how should I phrase git commit subjects", "overlap"),
  c("pref-03", "preference", "Always write to the user in British English spelling, such as colour and organise.", "which spelling variant does the user want", "overlap"),
  c("pref-04", "preference", "The user is vegetarian and does not eat fish either.", "dietary restrictions when ordering lunch", "semantic"),
  c("pref-05", "preference", "Use pnpm instead of npm when installing JavaScript packages.", "which node package manager should I pick", "semantic"),
  c("pref-06", "preference", "The user likes short, direct answers and dislikes long bullet lists unless asked.", "response formatting: keep it brief, avoid lists", "overlap"),
  c("pref-07", "preference", "Schedule everything in the Europe/Berlin time zone.", "what timezone are calls booked in", "semantic"),
  c("pref-08", "preference", "TypeScript projects use two-space indentation and single quotes.", "typescript code style for quotes", "overlap"),
  c("pref-09", "preference", "The user prefers pytest fixtures over unittest setUp methods.", "favoured approach for python test setup", "overlap"),
  c("pref-10", "preference", "No emojis anywhere in generated documentation.", "are emoticons ok in the docs", "semantic"),
  c("pref-11", "preference", "Meetings should be in the morning before 11am and never on Fridays.", "best slot to book a call", "semantic"),
  c("pref-12", "preference", "The user drinks oat milk flat whites; order that for the team coffee run.", "coffee order for the user", "overlap"),
  c("pref-13", "preference", "Keep pull requests under 400 changed lines.", "maximum diff size for a PR", "semantic"),
  c("pref-14", "preference", "The user wants Vim keybindings enabled in VS Code.", "editor key mapping setting", "semantic"),
  c("pref-15", "preference", "Default to PostgreSQL for new services unless there is a strong reason not to.", "default database choice for a new microservice", "overlap"),
  c("pref-16", "preference", "The user reads documentation in Spanish when a translation exists.", "which language should docs be in", "semantic"),
  c("pref-17", "preference", "Reports should use Celsius and metric units.", "temperature units in reports", "overlap"),
  c("pref-18", "preference", "Send the user a daily summary email at 6pm.", "when to send the daily digest", "overlap"),
  c("pref-19", "preference", "Light theme on the phone, dark theme everywhere else.", "mobile display appearance", "semantic"),
  c("pref-20", "preference", "Format all dates as ISO 8601, for example 2025-03-14.", "how should calendar days be written in output", "semantic"),
  c("pref-21", "preference", "The user prefers Rust for command-line tools.", "language for writing a CLI utility", "semantic"),
  c("pref-22", "preference", "Use squash merges when merging into the main branch.", "merge strategy for main", "overlap"),
  c("pref-23", "preference", "Batch questions into one message instead of interrupting repeatedly.", "how to ask clarifying questions", "overlap"),
  c("pref-24", "preference", "The user types on a Colemak keyboard layout.", "colemak", "keyword"),
  c("pref-25", "preference", "Prefer tabs for indentation in Go files, as gofmt does.", "whitespace convention for golang source", "semantic"),
  c("pref-26", "preference", "The user wants code review comments phrased as suggestions, not commands.", "tone for feedback on code reviews", "overlap"),
  c("pref-27", "preference", "Never schedule anything during the user's Wednesday afternoon swim.", "when are they unavailable midweek", "semantic"),
  c("pref-28", "preference", "The user likes aisle seats on flights longer than two hours.", "seat preference when booking a plane ticket", "semantic"),
  c("pref-29", "preference", "Explain SQL queries with an EXPLAIN ANALYZE output before suggesting indexes.", "what to show before recommending an index", "overlap"),
  c("pref-30", "preference", "The user wants invoices as PDF attachments, never as links.", "how to deliver bills", "semantic"),
  c("pref-31", "preference", "Use Conventional Commits prefixes like feat and fix.", "commit prefix convention", "semantic"),
  c("pref-32", "preference", "The user prefers Signal over WhatsApp for urgent messages.", "best messenger for something urgent", "overlap"),
  c("pref-33", "preference", "Charts should use the colour-blind friendly Okabe-Ito palette.", "okabe-ito", "keyword"),
  c("pref-34", "preference", "The user prefers hiking holidays in the mountains over beach trips.", "vacation ideas they would enjoy", "semantic"),
  c("pref-35", "preference", "Answer math questions with LaTeX formatting.", "how to typeset equations", "semantic"),

  // --- project facts -------------------------------------------------------------------------------
  c("proj-01", "project", "The staging database host is db-staging-02.internal on port 5433.", "db-staging-02", "keyword"),
  c("proj-02", "project", "API keys for the payments provider rotate every 90 days.", "how often do payment credentials expire", "semantic"),
  c("proj-03", "project", "The monorepo uses Turborepo with remote caching on Vercel.", "build cache setup for the repository", "semantic"),
  c("proj-04", "project", "Production runs on Kubernetes 1.29 in the eu-west-1 region.", "which aws region hosts prod", "overlap"),
  c("proj-05", "project", "Ticket ENG-4821 tracks the memory leak in the websocket gateway.", "ENG-4821", "keyword"),
  c("proj-06", "project", "The mobile app supports iOS 15 and newer.", "oldest iphone operating system we support", "semantic"),
  c("proj-07", "project", "Feature flags live in LaunchDarkly under the project key atlas-web.", "atlas-web", "keyword"),
  c("proj-08", "project", "The CI pipeline takes about 14 minutes; the end-to-end suite is the slowest step.", "why do builds take so long", "semantic"),
  c("proj-09", "project", "Error code E1107 means the upstream inventory service timed out.", "E1107", "keyword"),
  c("proj-10", "project", "The design system lives in the @acme/ui package and is versioned independently.", "where are the shared react components", "semantic"),
  c("proj-11", "project", "Backups of the orders database run nightly at 02:00 UTC and are kept for 35 days.", "retention period for backups", "overlap"),
  c("proj-12", "project", "The GraphQL schema is generated from Prisma models by a custom codegen script.", "how is the api schema produced", "overlap"),
  c("proj-13", "project", "The Sentry project for checkout is called checkout-prod-js.", "checkout-prod-js", "keyword"),
  c("proj-14", "project", "The legacy PHP admin panel will be removed in Q3.", "when will the old admin tool be retired", "overlap"),
  c("proj-15", "project", "Attachments are limited to 25 MB by the nginx proxy.", "biggest file a user can upload", "semantic"),
  c("proj-16", "project", "Internal DNS names end in corp.acme.net.", "internal domain suffix", "overlap"),
  c("proj-17", "project", "The data warehouse is the Snowflake account xy12345.", "xy12345", "keyword"),
  c("proj-18", "project", "Release branches are cut every second Wednesday.", "release cadence", "overlap"),
  c("proj-19", "project", "On-call is managed in the PagerDuty schedule P7QX2Z.", "P7QX2Z", "keyword"),
  c("proj-20", "project", "Load balancer health checks call /healthz every 10 seconds.", "liveness probe path", "semantic"),
  c("proj-21", "project", "The marketing site is built with Astro and deployed to Netlify.", "what framework powers the landing pages", "semantic"),
  c("proj-22", "project", "Search is powered by OpenSearch 2.11 with a custom analyzer for German compounds.", "opensearch analyzer", "keyword"),
  c("proj-23", "project", "The Android app is written in Kotlin with Jetpack Compose.", "ui toolkit of the android client", "overlap"),
  c("proj-24", "project", "Customer support tickets are handled in Zendesk, not Jira.", "where do helpdesk requests go", "semantic"),
  c("proj-25", "project", "The nightly ETL job loads Salesforce data into the warehouse by 4am.", "when is crm data refreshed", "overlap"),
  c("proj-26", "project", "The public API is versioned in the URL path, currently v3.", "how are api versions exposed", "overlap"),
  c("proj-27", "project", "Image thumbnails are generated by a Lambda function called thumbgen.", "thumbgen", "keyword"),
  c("proj-28", "project", "The service mesh is Linkerd, with mTLS between all pods.", "how is traffic inside the cluster encrypted", "semantic"),
  c("proj-29", "project", "Translations are managed in Crowdin and synced weekly.", "how do we handle localization", "semantic"),
  c("proj-30", "project", "The billing system sends dunning emails after 3 failed charges.", "what happens when card payments keep failing", "semantic"),
  c("proj-31", "project", "Secrets are stored in HashiCorp Vault at the path kv/platform.", "kv/platform vault", "keyword"),
  c("proj-32", "project", "The analytics events go to Segment and then to Amplitude.", "product analytics pipeline", "overlap"),
  c("proj-33", "project", "The main Postgres cluster has 2 read replicas in a different availability zone.", "how many postgres replicas", "overlap"),
  c("proj-34", "project", "The recommendation model is retrained every Sunday night on GPU spot instances.", "how often is the ranking model refreshed", "overlap"),
  c("proj-35", "project", "The iOS app build number must be bumped manually in Info.plist.", "Info.plist", "keyword"),
  c("proj-36", "project", "The company VPN is WireGuard, config handed out by the IT portal.", "how do I connect to the corporate network remotely", "semantic"),
  c("proj-37", "project", "Grafana dashboards are provisioned from the observability repo as JSON.", "where are monitoring dashboards defined", "overlap"),
  c("proj-38", "project", "The webhook signing secret header is X-Acme-Signature.", "X-Acme-Signature", "keyword"),
  c("proj-39", "project", "Customer data must stay in the EU because of GDPR commitments.", "data residency requirements", "overlap"),
  c("proj-40", "project", "The on-prem customer Globex runs our installer version 2.8.4.", "2.8.4 globex", "keyword"),

  // --- decisions ---------------------------------------------------------------------------------
  c("dec-01", "decision", "We chose Kafka over RabbitMQ for the event bus because it supports replay.", "why not rabbitmq for events", "overlap"),
  c("dec-02", "decision", "Support for Internet Explorer 11 is dropped starting with version 4.0.", "do we still support old microsoft browsers", "overlap"),
  c("dec-03", "decision", "The team agreed on trunk-based development with short-lived branches.", "git branching model we follow", "semantic"),
  c("dec-04", "decision", "No GraphQL subscriptions; use server-sent events for live updates.", "realtime push approach", "semantic"),
  c("dec-05", "decision", "We picked Auth0 for authentication instead of building SSO in-house.", "identity provider choice", "semantic"),
  c("dec-06", "decision", "Money is stored as integer cents, never as floating point.", "how to represent currency amounts in the database", "semantic"),
  c("dec-07", "decision", "Deploys are frozen during the last week of December.", "holiday deployment freeze", "semantic"),
  c("dec-08", "decision", "All new services must expose OpenTelemetry traces.", "tracing requirement for new services", "overlap"),
  c("dec-09", "decision", "We will use Terraform, not Pulumi, for all infrastructure code.", "infrastructure as code tool", "overlap"),
  c("dec-10", "decision", "Passwords are hashed with Argon2id with a memory cost of 64 MB.", "which algorithm protects stored credentials", "semantic"),
  c("dec-11", "decision", "The mobile team adopted React Native for the new companion app.", "cross-platform framework for the companion app", "overlap"),
  c("dec-12", "decision", "We decided against microservices for the MVP and will ship a modular monolith.", "architecture for the first version", "semantic"),
  c("dec-13", "decision", "Feature work pauses every sixth sprint for a dedicated tech-debt sprint.", "when do we pay down technical debt", "overlap"),
  c("dec-14", "decision", "Public API errors follow RFC 9457 problem details.", "RFC 9457", "keyword"),
  c("dec-15", "decision", "We standardised on UTC timestamps in every log line.", "timezone for logging", "semantic"),
  c("dec-16", "decision", "Customer PII is encrypted at the column level with envelope keys from KMS.", "how is personal data protected at rest", "semantic"),
  c("dec-17", "decision", "Use feature flags for every risky change instead of long-lived branches.", "how to ship a risky change safely", "overlap"),
  c("dec-18", "decision", "Images are served through Cloudflare with automatic WebP conversion.", "cdn for pictures", "semantic"),
  c("dec-19", "decision", "We chose ClickHouse for event analytics because queries over billions of rows stay fast.", "why clickhouse", "keyword"),
  c("dec-20", "decision", "The design team decided on Inter as the product typeface.", "which font does the product use", "overlap"),
  c("dec-21", "decision", "Every database migration must be backward compatible for one release.", "rules for schema changes", "semantic"),
  c("dec-22", "decision", "The support chatbot hands off to a human after two failed answers.", "when does the bot escalate to an agent", "semantic"),
  c("dec-23", "decision", "We decided to sunset the desktop Electron app by the end of the year.", "future of the electron client", "overlap"),
  c("dec-24", "decision", "Dependency updates are automated with Renovate, grouped weekly.", "how do library upgrades happen", "semantic"),
  c("dec-25", "decision", "Code owners must approve changes to the payments module.", "who needs to sign off on payment code", "overlap"),
  c("dec-26", "decision", "Rate limiting is done at the API gateway with a token bucket per key.", "throttling strategy", "semantic"),
  c("dec-27", "decision", "We use ULIDs instead of auto-increment integers for public identifiers.", "ULIDs", "keyword"),
  c("dec-28", "decision", "Staging data is refreshed from anonymised production snapshots every Monday.", "how fresh is the test environment data", "overlap"),
  c("dec-29", "decision", "Accessibility target is WCAG 2.2 AA for all customer-facing pages.", "accessibility standard we aim for", "overlap"),
  c("dec-30", "decision", "Incident postmortems are blameless and published within five working days.", "deadline for writing up an outage review", "semantic"),

  // --- corrections ---------------------------------------------------------------------------------
  c("corr-01", "correction", "Correction: the CEO's name is spelled Aoife, not Eva.", "how do you spell the chief executive's name", "overlap"),
  c("corr-02", "correction", "Correction: the product launch moved from May 12 to June 3.", "new launch date", "overlap"),
  c("corr-03", "correction", "Actually the staging environment runs Redis 7, not Redis 6.", "redis version on staging", "overlap"),
  c("corr-04", "correction", "Correction: Priya leads the data team now; Marco moved to platform.", "who heads the analytics group", "semantic"),
  c("corr-05", "correction", "The user's birthday is on 14 February, not 4 February.", "when should I send birthday wishes", "overlap"),
  c("corr-06", "correction", "Correction: the office moved to 22 Harbour Street in Leith.", "current office address", "overlap"),
  c("corr-07", "correction", "The user's son is named Tomasz, not Thomas.", "what is the kid called", "semantic"),
  c("corr-08", "correction", "Correction: the API rate limit is 600 requests per minute, not 60.", "how many calls per minute can a client make", "overlap"),
  c("corr-09", "correction", "Actually the contract with Initech renews in October, not September.", "initech renewal", "keyword"),
  c("corr-10", "correction", "The budget for the offsite is 12,000 euros, not 20,000.", "how much money can we spend on the team retreat", "semantic"),
  c("corr-11", "correction", "Correction: the Slack channel for incidents is #inc-war-room, not #incidents.", "inc-war-room", "keyword"),
  c("corr-12", "correction", "The user is allergic to peanuts, not tree nuts.", "food allergy", "semantic"),
  c("corr-13", "correction", "Correction: the deploy window is 10:00 to 12:00 CET, not the afternoon.", "when am I allowed to ship to production", "semantic"),
  c("corr-14", "correction", "Actually the user's manager is Daniel Kowalski, not Daniel Kovac.", "kowalski", "keyword"),
  c("corr-15", "correction", "Correction: the free trial lasts 14 days, not 30.", "length of the trial period", "overlap"),
  c("corr-16", "correction", "The user's flight lands at Heathrow Terminal 5, not Gatwick.", "which airport to pick them up from", "semantic"),
  c("corr-17", "correction", "Correction: the quarterly board meeting is on the 2nd Tuesday, not the 1st.", "board meeting schedule", "overlap"),
  c("corr-18", "correction", "Actually the repo was renamed from atlas-core to atlas-platform.", "atlas-core", "keyword"),
  c("corr-19", "correction", "The user's partner is vegan, which is stricter than vegetarian.", "plant-based diet at home", "semantic"),
  c("corr-20", "correction", "Correction: the SLA is 99.9 percent monthly uptime, not 99.99.", "availability commitment to customers", "semantic"),
  c("corr-21", "correction", "The user now lives in Lisbon; the Porto address is outdated.", "where does the user live now", "overlap"),
  c("corr-22", "correction", "Correction: invoices are due in 45 days, not 30.", "payment terms for bills", "semantic"),
  c("corr-23", "correction", "Actually Node 20 is required; the README still says Node 18.", "required node version", "overlap"),
  c("corr-24", "correction", "Correction: the standup is at 9:15, not 9:30.", "what time is the daily sync", "semantic"),
  c("corr-25", "correction", "The database password was rotated; the old one in the wiki no longer works.", "wiki credentials outdated", "overlap"),

  // --- people, places, personal ----------------------------------------------------------------------
  c("ppl-01", "general", "Dr. Okafor is the user's dentist; appointments are on Thursdays.", "okafor", "keyword"),
  c("ppl-02", "general", "Hannah Schmidt from legal must approve changes to the privacy policy.", "who signs off on privacy policy edits", "overlap"),
  c("ppl-03", "general", "The user's sister Maja lives in Krakow and visits every August.", "family member visiting in summer", "semantic"),
  c("ppl-04", "general", "Ravi is the best person to ask about the Kubernetes networking setup.", "who knows about cluster networking", "overlap"),
  c("ppl-05", "general", "The user's dog is called Biscuit and needs a walk at lunchtime.", "name of the pet", "semantic"),
  c("ppl-06", "general", "The accountant, Mrs. Lindqvist, needs receipts by the 5th of each month.", "lindqvist", "keyword"),
  c("ppl-07", "general", "The user plays five-a-side football on Tuesday evenings.", "weekly sport", "semantic"),
  c("ppl-08", "general", "Yusuf from Globex is the main contact for the on-prem deployment.", "who to talk to at globex", "keyword"),
  c("ppl-09", "general", "The user is learning Japanese and practises with Duolingo every morning.", "which foreign language is the user studying", "overlap"),
  c("ppl-10", "general", "The user's parents live in Gdansk and call on Sunday evenings.", "when do mom and dad phone", "semantic"),
  c("ppl-11", "general", "Chiara is the UX researcher; book her for usability tests.", "who runs user studies", "semantic"),
  c("ppl-12", "general", "The user volunteers at a food bank on the first Saturday of every month.", "monthly charity work", "semantic"),
  c("ppl-13", "general", "The user's car is a 2019 Skoda Octavia due for service in March.", "skoda", "keyword"),
  c("ppl-14", "general", "Ben from security reviews every new third-party integration.", "who checks vendor integrations", "semantic"),
  c("ppl-15", "general", "The user is training for the Berlin marathon in September.", "upcoming race", "semantic"),
  c("ppl-16", "general", "Noor is the product manager for the mobile app.", "pm for the mobile app", "overlap"),
  c("ppl-17", "general", "The user's favourite restaurant is Osteria Francescana in Modena.", "where to book a special dinner", "semantic"),
  c("ppl-18", "general", "The landlord, Mr. Petrov, must be told two months before moving out.", "notice period for the apartment", "semantic"),
  c("ppl-19", "general", "Elif handles visa paperwork for new hires.", "who helps with immigration documents", "semantic"),
  c("ppl-20", "general", "The user's daughter has piano lessons on Monday at 5pm.", "kids music class", "semantic"),

  // --- observations ----------------------------------------------------------------------------------
  c("obs-01", "observation", "The flaky test test_checkout_timeout fails about once in twenty runs.", "test_checkout_timeout", "keyword"),
  c("obs-02", "observation", "Memory usage of the worker pods grows steadily until they are OOM-killed after two days.", "containers running out of RAM", "semantic"),
  c("obs-03", "observation", "Latency spikes on the search API line up with the nightly reindex at 01:00.", "why is search slow at night", "overlap"),
  c("obs-04", "observation", "The user gets frustrated when asked to repeat information already given.", "what annoys the user", "overlap"),
  c("obs-05", "observation", "Signup conversion dropped 8 percent after the new onboarding flow shipped.", "did the registration funnel get worse", "semantic"),
  c("obs-06", "observation", "Most support tickets in March were about password resets.", "common helpdesk complaint last spring", "semantic"),
  c("obs-07", "observation", "The S3 bill doubled after versioning was enabled on the logs bucket.", "why did storage costs go up", "semantic"),
  c("obs-08", "observation", "The user usually works late on Thursdays and starts later on Fridays.", "their schedule at the end of the week", "semantic"),
  c("obs-09", "observation", "Builds on the ARM runners are 30 percent faster than on x86.", "which CI machines are quicker", "semantic"),
  c("obs-10", "observation", "The nightly export job to the partner SFTP server fails when the file exceeds 2 GB.", "sftp export failure", "overlap"),
];
