/**
 * Paraphrase retrieval set for scripts/bench/quality.ts: memories an agent keeps about a user (pets,
 * health, people, work, tools, travel, schedules, food, money, hobbies, decisions, places,
 * purchases, preferences), each with one question that asks for it in other words. The question
 * shares no content word with its memory under the keyword search's own analysis (queryTerms
 * against indexTerms: Porter2 stems, stopwords dropped; test/unit/paraphrase-set.test.ts holds every
 * case to it), so BM25 cannot find the memory and only the meaning connects the two.
 *
 * Each memory comes with hard distractors: memories about the same person, pet or topic that are
 * plausible but wrong answers, and at least one of which shares a word with the question, so the
 * keyword signal points the wrong way. Every case lives in the same wallet; no memory answers
 * another case's question.
 */
import { indexTerms, queryTerms } from "../../src/domain/text";

export type Topic =
  | "pets"
  | "health"
  | "people"
  | "work"
  | "tools"
  | "travel"
  | "schedule"
  | "food"
  | "finance"
  | "hobbies"
  | "decisions"
  | "places"
  | "purchases"
  | "preferences";

export interface ParaphraseCase {
  id: string;
  topic: Topic;
  /** the memory the question asks for */
  memory: string;
  question: string;
  /** hard distractors: same person or topic, plausibly but wrongly answering the question */
  distractors: string[];
}

/**
 * The question's keyword-search terms (what /v1/search and recall's keyword signal send to the
 * engine) that the memory's indexed terms contain: empty for every case of the set.
 */
export function sharedTerms(question: string, memory: string): string[] {
  const indexed = new Set(indexTerms(memory));
  return queryTerms(question).filter((term) => indexed.has(term));
}

type Row = [id: string, memory: string, question: string, distractors: string[]];
const cases = (topic: Topic, rows: Row[]): ParaphraseCase[] => rows.map(([id, memory, question, distractors]) => ({ id, topic, memory, question, distractors }));

export const PARAPHRASE_SET: ParaphraseCase[] = [
  ...cases("pets", [
    ["pets-01", "Next door, Mrs. Alvarez keeps a parrot called Kiwi that whistles the radio jingle.", "What kind of bird lives with the neighbour?", [
      "The neighbour's teenage son walks a greyhound every evening.",
      "Bird feeders in the garden attract sparrows and blue tits all winter.",
      "Mrs. Alvarez asked the user to water her tomatoes in August.",
    ]],
    ["pets-02", "The user's tabby, Miso, needs a thyroid pill crushed into wet food every morning.", "Which medication does my cat take?", [
      "The cat flap was replaced after the old one jammed.",
      "The user takes an antihistamine during pollen season.",
      "Miso hides under the bed whenever guests visit.",
    ]],
    ["pets-03", "Our golden retriever Biscuit turned nine in March and has stiff hips.", "How old is the family dog?", [
      "The dog park on Fenwick Road closes at dusk.",
      "Biscuit's favourite toy is a squeaky rubber duck.",
      "The family's previous dog lived to be fourteen.",
    ]],
    ["pets-04", "Two axolotls live in the 80-litre tank in the study; the water must stay below 20 °C.", "What temperature should the amphibian aquarium be kept at?", [
      "The aquarium shop on Dock Street sells frozen bloodworms.",
      "The thermostat in the hallway is kept at 21 degrees in winter.",
      "One axolotl is pink and the other is dark grey.",
    ]],
    ["pets-05", "Pepper the rabbit is litter-trained and roams the kitchen during the day.", "Where is the bunny allowed to hop around?", [
      "Pepper is not allowed upstairs because she chews cables.",
      "Bunny ears were part of the Easter costume for the school play.",
      "The rabbit hutch in the garden needs a new latch.",
    ]],
    ["pets-06", "Remind the user that the gecko's UV lamp should be replaced every six months.", "How often does the lizard's light bulb need changing?", [
      "The hallway light bulb flickers and needs changing.",
      "The gecko eats crickets dusted with calcium powder twice a week.",
      "The lizard exhibit at the zoo was closed for renovation.",
    ]],
    ["pets-07", "Dr. Hana Sato at the Riverside practice has treated Miso since kittenhood.", "Who is my pet doctor?", [
      "The user's family doctor retired last spring.",
      "The pet insurance renews every October.",
      "Miso's last checkup showed healthy teeth.",
    ]],
    ["pets-08", "The dog walker, Tomasz, comes at noon on weekdays.", "Who exercises our retriever while I'm at work?", [
      "The retriever's grooming is done at Pawfect every eight weeks.",
      "The user works through lunch most days.",
      "The spare car key is in the kitchen drawer.",
    ]],
    ["pets-09", "Goldfish food is in the blue tin above the microwave.", "Where do I keep the fish flakes?", [
      "Fish and chips on Fridays is a family tradition.",
      "The user keeps spare batteries in the hall cupboard.",
      "The goldfish bowl needs cleaning every two weeks.",
    ]],
    ["pets-10", "Pepper the rabbit had her vaccinations against myxomatosis and RHD in May.", "When was the bunny last immunised?", [
      "The user's flu jab is booked for October.",
      "The rabbit's nails were last trimmed in April.",
      "Pepper weighs two kilos.",
    ]],
    ["pets-11", "The horse the user leases, Dancer, is stabled at Hollow Farm outside town.", "Where does my pony live?", [
      "The user lives on the third floor of a building with no lift.",
      "Dancer is a grey mare, fifteen years old.",
      "Pony rides at the summer fair cost five pounds.",
    ]],
    ["pets-12", "The retriever, Biscuit, is allergic to chicken, so treats must be fish- or lamb-based.", "What meat should the dog avoid?", [
      "The user avoids red meat on weekdays.",
      "The dog's bed is washed every Saturday.",
      "Biscuit loves carrots as a snack.",
    ]],
    ["pets-13", "Cat-sitting during holidays: Leonie from the second floor, paid 15 euros per visit.", "Who feeds the kitty when I'm away on vacation?", [
      "The user's vacation days reset every January.",
      "Leonie is studying architecture at the university.",
      "The kitty litter is changed every other day.",
    ]],
    ["pets-14", "The user's tortoise, Sheldon, hibernates in a box in the garage from November to March.", "When does my reptile sleep through the winter?", [
      "The user sleeps badly in hot weather.",
      "Winter tyres go on the car in November.",
      "Sheldon eats dandelions and clover.",
    ]],
    ["pets-15", "Microchip number for Biscuit: 981000123456789, registered with PetLog.", "What's the dog's identification tag code?", [
      "The dog licence fee went up to 30 euros.",
      "The garage door code is 4417.",
      "Biscuit's collar tag has the user's phone number.",
    ]],
    ["pets-16", "The user's daughter wants a hamster for her birthday, but the landlady forbids rodents.", "Which pet is my kid asking for?", [
      "The kid next door asked to borrow the user's bike.",
      "The landlady allows one cat per flat.",
      "The daughter's birthday party is at the climbing gym.",
    ]],
  ]),

  ...cases("health", [
    ["health-01", "The user's dentist is Dr. Okafor at the Harbour Street practice.", "Who looks after my teeth?", [
      "The user looks after a neighbour's plants in summer.",
      "Teeth whitening was offered at the last checkup but the user declined.",
      "Dr. Okafor's receptionist prefers calls after 2pm.",
    ]],
    ["health-02", "Allergic to penicillin: a rash covered both arms in 2019.", "Which antibiotic must I never be given?", [
      "The user is given a flu vaccine every autumn.",
      "Antibiotic ointment is in the first-aid box.",
      "Pollen allergy flares up in May.",
    ]],
    ["health-03", "Blood pressure readings last month averaged 128 over 82.", "What were my recent cardiovascular numbers?", [
      "The user's phone number changed in February.",
      "Recent blood tests showed low vitamin D.",
      "The cardiovascular clinic moved to the new hospital wing.",
    ]],
    ["health-04", "Takes 50 mg of sertraline each morning with breakfast.", "Which antidepressant am I on, and what dose?", [
      "The dose of vitamin D is 1000 units daily.",
      "The user stopped taking ibuprofen after stomach pain.",
      "A morning walk before work helps the user's mood.",
    ]],
    ["health-05", "Physio exercises for the left knee: ten squats and three sets of calf raises, daily.", "What rehab routine was prescribed for my leg injury?", [
      "The user's running routine is paused until spring.",
      "A prescription for stronger painkillers was refused.",
      "Leg cramps at night were eased by magnesium.",
    ]],
    ["health-06", "Migraines tend to follow nights with under six hours of sleep.", "What triggers my bad headaches?", [
      "Bad weather triggers the user's knee pain.",
      "Headache tablets are in the bathroom cabinet.",
      "The user wants to sleep eight hours a night.",
    ]],
    ["health-07", "The user is lactose intolerant; small amounts of hard cheese are fine.", "Which milk products cause me stomach trouble?", [
      "Oat milk goes in the kids' porridge.",
      "Stomach trouble last week was blamed on bad prawns.",
      "The user likes a sharp cheddar with apples.",
    ]],
    ["health-08", "Annual eye test at Clearview Opticians on Lime Street is due in September.", "When is my next vision check-up?", [
      "The car's next service check is in June.",
      "The glasses prescription is minus 2.5 in both eyes.",
      "Night vision has worsened on motorways.",
    ]],
    ["health-09", "Runs 5 km three times a week to keep the resting heart rate down.", "How much jogging do I do?", [
      "Jogging shoes are replaced every 800 km.",
      "The heart rate monitor needs a new strap.",
      "Too much coffee makes the user jittery.",
    ]],
    ["health-10", "Therapist: Ines Duarte, Tuesdays 6pm, online.", "When do I see my counsellor?", [
      "The user sees the optician once a year.",
      "The counsellor at the kids' school is Mr. Brandt.",
      "Ines Duarte also runs mindfulness workshops.",
    ]],
    ["health-11", "Type 1 diabetic since age twelve; carries glucose tablets everywhere.", "What chronic condition do I manage with insulin?", [
      "Insulin pens are stored in the fridge door.",
      "The user manages the family's medical appointments.",
      "A chronic back condition was ruled out by an MRI.",
    ]],
    ["health-12", "Broke the right wrist snowboarding in 2021; it aches in cold weather.", "Which bone fracture have I had?", [
      "Bone density scans are recommended after fifty.",
      "A hairline fracture in a foal's leg healed by June at the stables.",
      "The user's sister broke her ankle playing netball.",
    ]],
    ["health-13", "Sleeps with a CPAP machine because of obstructive apnea.", "What device do I need at night for breathing?", [
      "Breathing exercises help before presentations.",
      "The user needs a night light in the hallway.",
      "The device charger is kept in the bedside drawer.",
    ]],
    ["health-14", "Blood type: O negative. Gives blood every four months.", "Which transfusion group am I?", [
      "The user's running group meets on Thursdays.",
      "A transfusion was needed after the 2016 surgery.",
      "The user's brother is A positive.",
    ]],
    ["health-15", "Wears hearing aids in both ears; batteries are size 312.", "What do I use to help me listen?", [
      "The user listens to podcasts while cooking.",
      "Help with the kids' maths homework comes from Aiko.",
      "The user uses earplugs on flights.",
    ]],
    ["health-16", "Gluten makes the user ill — coeliac disease confirmed by biopsy in 2018.", "Why must I avoid bread and pasta?", [
      "Fresh bread is delivered on Saturdays.",
      "The user avoids pasta at dinner to sleep better.",
      "Coeliac-safe restaurants near the office are listed in a shared note.",
    ]],
  ]),

  ...cases("people", [
    ["people-01", "Priya, the user's older sister, works as an anaesthetist in Leeds.", "What does my sibling do for a living?", [
      "The user's brother-in-law lives in Glasgow.",
      "Priya has two children, Arjun and Maya.",
      "The user's cousin is a nurse in Leeds.",
    ]],
    ["people-02", "Best friend since school: Marco, who now runs a bakery in Turin.", "Who is my closest mate?", [
      "The closest pharmacy is on Queen Street.",
      "Marco's bakery is famous for its focaccia.",
      "The user's flatmate at university was Jonas.",
    ]],
    ["people-03", "The user's manager is Helen Cho; one-to-ones happen fortnightly.", "Who is my boss?", [
      "The big boss, the CEO, is Raymond Ortiz.",
      "Helen Cho is learning Portuguese.",
      "The user mentors two junior engineers.",
    ]],
    ["people-04", "Grandma Edith turns ninety on 14 July; the party is at the Swan hotel.", "When is my grandmother's birthday?", [
      "The user's grandmother on the father's side died in 2015.",
      "Edith likes lilies and hates roses.",
      "The birthday present for Priya is a silk scarf.",
    ]],
    ["people-05", "Father-in-law Kenji is a retired ferry captain who loves fishing.", "What was my wife's dad's job?", [
      "The user's wife, Aiko, is a pharmacist.",
      "The user's dad worked at the post office for thirty years.",
      "Kenji visits from Osaka every other spring.",
    ]],
    ["people-06", "The plumber who fixed the boiler was Dave Mills, 07700 900123.", "Contact for the heating repair guy?", [
      "The electrician, Ravi, rewired the kitchen in 2022.",
      "The car repair shop is on Mill Lane.",
      "Heating bills doubled last winter.",
    ]],
    ["people-07", "Fatima at number 12 has a spare house key for emergencies.", "Who can let me in if I'm locked out?", [
      "The user locked the bike to the railings outside the library.",
      "Fatima runs the corner shop with her husband.",
      "The locksmith charged 90 euros last time and took two hours to arrive.",
    ]],
    ["people-08", "Sofia, the user's goddaughter, is starting university in Bologna this autumn.", "Where is my godchild going to study?", [
      "The user is going to study the history of Bologna before visiting.",
      "Sofia's mother is a violin teacher.",
      "The user's godson Luca works as a chef in Melbourne.",
    ]],
    ["people-09", "The user's mentor at work is Grace Obi, a principal engineer.", "Who gives me career advice?", [
      "The career fair is on 3 May at the convention centre.",
      "Grace Obi leads the platform team.",
      "The user gives a talk at the local meetup each quarter.",
    ]],
    ["people-10", "Uncle Bernard doesn't drink; bring sparkling juice when visiting.", "Is my mother's brother teetotal?", [
      "The user's mother drinks red wine with dinner.",
      "The user's brother lives in Cork.",
      "Bernard collects vintage radios.",
    ]],
    ["people-11", "Childhood friend Yusuf got married in June to a woman named Clara.", "Which old pal recently tied the knot?", [
      "An old pal from university, Nadia, moved to Canada.",
      "The knot on the boat's mooring line came loose.",
      "Yusuf is a civil engineer.",
    ]],
    ["people-12", "The twins next door, Ada and Ben, babysit on Friday evenings for 12 euros an hour.", "Who watches my kids when we go out?", [
      "The kids watch cartoons on Saturday mornings.",
      "The user goes out for a curry with colleagues monthly.",
      "Ada wants to be a vet.",
    ]],
    ["people-13", "Colleague Ahmed is fasting for Ramadan, so lunch meetings move to late afternoon.", "Why should I avoid scheduling noon meals with my coworker?", [
      "A coworker, Jun, eats at his desk every day.",
      "The user avoids scheduling calls before nine.",
      "Noon is when the office canteen gets crowded.",
    ]],
    ["people-14", "Nephew Oscar is obsessed with dinosaurs — books about fossils are a safe gift.", "What present would my brother's boy like?", [
      "The user's brother likes single malt whisky.",
      "A present for a retiring colleague is being collected.",
      "Oscar plays in a junior football team.",
    ]],
    ["people-15", "Eleni, the landlady, prefers texts to calls and replies within a day.", "How does the owner of my flat like to be contacted?", [
      "The previous owner of the car kept every service record.",
      "The user likes to be contacted by email for work matters.",
      "Eleni has a holiday home in Crete.",
    ]],
    ["people-16", "Tariq from the climbing gym is the user's regular belay partner.", "Who secures the rope for me at the wall?", [
      "The garden wall needs repointing.",
      "Rope for the washing line is in the shed.",
      "Tariq works night shifts at the hospital.",
    ]],
  ]),

  ...cases("work", [
    ["work-01", "Project Falcon migrates the billing ledger to event sourcing; launch target is Q3.", "Which effort is rebuilding how invoices and payments are recorded?", [
      "Invoices for the Hooli contract are sent on the first of the month.",
      "Payments from the Berlin client arrive late every quarter.",
      "Project Falcon's standup is at 9:15.",
    ]],
    ["work-02", "The user leads the mobile redesign; designs are due to engineering on 2 May.", "Which app overhaul am I in charge of?", [
      "The user is in charge of the team's holiday rota.",
      "The app store review took six days last time.",
      "The old mobile site will be switched off once the redesign ships.",
    ]],
    ["work-03", "Quarterly OKR: cut customer support tickets by 20 percent through better onboarding.", "What's my team's goal for these three months?", [
      "The team's goal last year was to double signups.",
      "Three months of parental leave start in October for a teammate.",
      "The support team moved to the fourth floor.",
    ]],
    ["work-04", "Staging deploys are frozen from 20 December to 3 January.", "When can't we ship releases over the holidays?", [
      "Release notes are written by the product manager.",
      "The office is closed over the holidays.",
      "Shipping costs for hardware samples are reimbursed.",
    ]],
    ["work-05", "The Nordstrand client in Oslo wants weekly progress reports every Friday by email.", "How often does that Scandinavian customer expect status updates?", [
      "Customer status updates for Globex go out monthly.",
      "The Scandinavian office has its own payroll.",
      "The user expects a promotion review in spring.",
    ]],
    ["work-06", "The user's team owns the search indexer and the autocomplete service.", "What components is my group responsible for?", [
      "The group chat for the offsite is very noisy.",
      "The payments team is responsible for refunds.",
      "The autocomplete latency target is 50 ms.",
    ]],
    ["work-07", "The Q2 budget for contractors is 40,000 euros, signed off by finance.", "How much can I spend on freelancers this quarter?", [
      "The user spends too much on takeaway lunches.",
      "Freelancers must sign an NDA before starting.",
      "Last quarter's travel spend was under plan.",
    ]],
    ["work-08", "Performance review is on 12 June; self-assessment due a week before.", "When is my appraisal?", [
      "The appraisal of the house valued it at 420,000.",
      "The user reviews pull requests every afternoon.",
      "Last year's rating was 'exceeds expectations'.",
    ]],
    ["work-09", "Hiring for a senior data engineer; interviews are Tuesdays and Thursdays.", "Which role are we recruiting for?", [
      "The recruiting agency charges 20 percent of the first salary.",
      "The user's role changed to staff engineer in January.",
      "Data engineering interviews include a SQL exercise.",
    ]],
    ["work-10", "The postmortem for the March outage blamed an expired TLS certificate.", "What caused the big incident in spring?", [
      "Spring cleaning of the backlog is planned for April.",
      "The incident channel is #ops-fire.",
      "A big storm caused a power cut at the office in November.",
    ]],
    ["work-11", "Conference talk accepted: 'Queues without tears' at RustConf, 40 minutes.", "Which presentation of mine got selected for the event?", [
      "The user's presentation to the board went well.",
      "The event venue has no step-free access.",
      "The talk about Kafka was rejected by two meetups.",
    ]],
    ["work-12", "Daily standup moved to 9:40 so the Lisbon colleagues can join.", "What time is the morning sync meeting?", [
      "The Monday meeting with sales starts at 11.",
      "Morning coffee with the team is at the kiosk downstairs.",
      "Sync issues with the calendar app were fixed.",
    ]],
    ["work-13", "The user's employment contract has a three-month notice period.", "How far ahead must I tell the company if I resign?", [
      "The company car must be returned on the last working day.",
      "The user told the landlady about the leak.",
      "Contract renewals for software licences are due in May.",
    ]],
    ["work-14", "Expense claims go through Concur and are paid with the next salary.", "How do I get reimbursed for business costs?", [
      "Business cards can be ordered from the office manager.",
      "The user gets a travel allowance of 200 euros per trip.",
      "Costs for the offsite are split between two departments.",
    ]],
    ["work-15", "The user is switching to a four-day week from September, Fridays off.", "Am I reducing my hours soon?", [
      "Opening hours of the library are reduced in August.",
      "The user will soon need a new passport.",
      "A colleague, Marta, went part-time last year.",
    ]],
    ["work-16", "The design doc for the rate limiter is waiting on security sign-off.", "What's blocking the throttling proposal?", [
      "A proposal to move offices was blocked by the landlord.",
      "Throttling on the public API is 100 requests per minute.",
      "The security team meets on Wednesdays.",
    ]],
  ]),

  ...cases("tools", [
    ["tools-01", "The user writes notes in Obsidian and syncs the vault through iCloud.", "Which app do I use for my knowledge base?", [
      "The knowledge base for customers runs on Zendesk.",
      "The user uses Spotify on the commute.",
      "The vault of old family recipes is a ring binder.",
    ]],
    ["tools-02", "Password manager: Bitwarden, with a YubiKey as the second factor.", "How do I store my logins securely?", [
      "The user stores bikes in the shed.",
      "Login to the staging admin uses single sign-on.",
      "Security training is due every March.",
    ]],
    ["tools-03", "Terminal setup: fish shell with the Starship prompt in a Kitty window.", "Which command-line environment do I prefer?", [
      "The user prefers to print boarding passes.",
      "Command-line tools for the cloud are installed with Homebrew.",
      "The line at the bakery is shortest before eight.",
    ]],
    ["tools-04", "The budget lives in a Google Sheet called 'Money 2025', shared with Aiko.", "Where do I track household spending?", [
      "The user tracks runs with a Garmin watch.",
      "Household chores are split on a whiteboard in the kitchen.",
      "Spending on groceries went up in spring.",
    ]],
    ["tools-05", "Photos are backed up nightly to a Synology NAS in the cupboard.", "Where are my pictures saved?", [
      "Pictures from the wedding were printed in an album.",
      "The user saves receipts in a shoebox.",
      "The NAS fan is noisy and needs replacing.",
    ]],
    ["tools-06", "The user drafts blog posts in iA Writer and publishes with Hugo.", "Which software do I write articles in?", [
      "The user writes to grandma Edith every month.",
      "Articles about the company appear in the trade press.",
      "The accounting software is Xero.",
    ]],
    ["tools-07", "Uses a Kinesis Advantage 360 split keyboard because of wrist strain.", "What typing hardware do I have?", [
      "Hardware for the new office is ordered through IT.",
      "The user types fastest on a phone in portrait mode.",
      "The wrist rest was left at the office.",
    ]],
    ["tools-08", "Calendar is Fastmail; the work calendar is Outlook and syncs one way.", "Which scheduling service do I use personally?", [
      "The user uses a paper planner for the garden.",
      "The scheduling tool for interviews is GoodTime.",
      "Personal emails go to a separate address.",
    ]],
    ["tools-09", "The user's home router is a FritzBox; the admin password is on a sticker underneath.", "How do I get into the wifi box settings?", [
      "The wifi in the office drops every afternoon.",
      "Settings for the thermostat are in its phone app.",
      "A box of old cables is in the garage.",
    ]],
    ["tools-10", "Video calls happen in Zoom; the personal meeting ID is 831 220 4471.", "Which conferencing app do I host on?", [
      "The user will host the book club in March.",
      "The conferencing room on the third floor has a broken screen.",
      "The company uses Slack for chat.",
    ]],
    ["tools-11", "Photo edits are done in Darktable rather than Lightroom to avoid a subscription.", "What program do I use to retouch my images?", [
      "The user uses Canva for party invitations.",
      "Images for the blog are compressed before upload.",
      "The program for the conference is not out yet.",
    ]],
    ["tools-12", "Car navigation: Waze on the phone, since the built-in maps are from 2017.", "What do I rely on for driving directions?", [
      "Driving lessons for the daughter start in April.",
      "The user relies on a sleep tracker.",
      "Directions to the farm are in the shared note.",
    ]],
    ["tools-13", "Smart home lights run on Home Assistant on a Raspberry Pi in the hall.", "What controls the lamps automatically?", [
      "The desk lamp needs a new bulb.",
      "Automatic payments cover the electricity bill.",
      "The thermostat controls are confusing to guests.",
    ]],
    ["tools-14", "Language learning: 20 minutes of Anki flashcards on Japanese kanji each night.", "How do I practise words for my foreign tongue studies?", [
      "Foreign currency is kept in an envelope in the desk.",
      "The user practises piano scales before bed.",
      "Word games with the kids happen on long drives.",
    ]],
    ["tools-15", "Printer is an old Brother laser; toner cartridge TN-2420.", "Which refill do I order for the printing machine?", [
      "The user orders coffee beans every two weeks.",
      "The printing of wedding invitations cost 80 euros.",
      "The washing machine needs descaling.",
    ]],
    ["tools-16", "The team tracks bugs in Linear; the user's personal todos live in Things.", "Where do I keep my own to-do list?", [
      "The user keeps a list of books to read.",
      "The shopping list is on the fridge.",
      "Own-brand cereal is fine for the kids.",
    ]],
  ]),

  ...cases("travel", [
    ["travel-01", "Passport expires on 8 November 2026; renewal takes about six weeks.", "When does my travel document run out?", [
      "Travel documents for the kids are in the red folder.",
      "Documents for the mortgage are in the grey folder.",
      "The daughter's passport was renewed last year.",
    ]],
    ["travel-02", "On trains, the user picks a forward-facing window place in the quiet coach.", "Which seat do I like on rail journeys?", [
      "The user likes the back seat of the bus.",
      "Rail strikes are announced a week ahead.",
      "The journey to Hollow Farm takes forty minutes.",
    ]],
    ["travel-03", "Frequent flyer number with KLM Flying Blue: 2211 4430 99.", "What's my airline loyalty membership code?", [
      "The gym membership code is printed on the key fob.",
      "The airline lost the user's suitcase in 2022.",
      "Loyalty points at the supermarket expire each December.",
    ]],
    ["travel-04", "Summer trip: two weeks in Crete from 3 to 17 August, ferry from Piraeus.", "Where are we going on vacation this year, and when?", [
      "Last year's vacation was a rainy week in Wales.",
      "The user is going to a wedding in Porto in October.",
      "Crete was too hot for the kids in 2019.",
    ]],
    ["travel-05", "The user gets carsick on winding roads and should sit in front.", "Any motion problems when riding in vehicles?", [
      "Vehicle tax is due in July.",
      "Riding lessons at Hollow Farm cost 35 euros.",
      "Problems with the motion sensor in the hall were fixed.",
    ]],
    ["travel-06", "Hotel preference: quiet room, high floor, away from the lift.", "What should I ask for when booking a place to stay?", [
      "The user asks for receipts for every business trip.",
      "Booking the campsite opens in February.",
      "The user stays with Marco when visiting Turin.",
    ]],
    ["travel-07", "Visa for India was approved; it is an e-visa valid for one year, multiple entries.", "Did my permit for the subcontinent come through?", [
      "The parking permit for the street was renewed.",
      "The user comes through Frankfurt on most trips.",
      "India is on the list for next winter.",
    ]],
    ["travel-08", "The airport taxi from Lisbon is booked with Tuk Tours, pickup at 06:10.", "How am I getting to the terminal for my early departure?", [
      "The early train to Leeds departs at 6:45.",
      "The user is getting a new phone in June.",
      "Terminal 2 has the better lounge.",
    ]],
    ["travel-09", "Loves slow travel: night trains over flights whenever the journey is under twelve hours.", "Do I prefer sleeper carriages or planes?", [
      "The user prefers the window seat in planes for long hauls.",
      "Sleeper sofas were considered for the guest room.",
      "The carriage with bikes is always at the back.",
    ]],
    ["travel-10", "Travel insurance is through the credit card and covers the whole family.", "What protects me if I fall ill overseas?", [
      "The user fell ill after eating street food in Bangkok.",
      "Overseas calls are cheaper on the family plan.",
      "Sun protection factor 50 is needed for the daughter.",
    ]],
    ["travel-11", "Prefers to arrive at airports two hours before departure, never less.", "How early do I like to get to the terminal?", [
      "The user likes to get to concerts early for a good spot.",
      "The terminal building in Porto is small and fast to clear.",
      "The early bird discount for the festival ends in May.",
    ]],
    ["travel-12", "Road trip in Scotland booked: campervan from Inverness, 12–20 June.", "When is the motorhome holiday up north?", [
      "The holiday cottage in Wales had no wifi.",
      "North-facing rooms in the flat stay cold.",
      "The campervan company needs a deposit by May.",
    ]],
    ["travel-13", "Souvenir rule: one fridge magnet per city, nothing else.", "What do I bring back from trips as keepsakes?", [
      "The user brings the kids' bikes on trips to the coast.",
      "Back pain flares up after long flights.",
      "Keepsakes from grandma are in a cedar box.",
    ]],
    ["travel-14", "Speaks decent Spanish and basic Portuguese; no French at all.", "Which languages can I get by with abroad?", [
      "Languages at the conference are English and German.",
      "The user can get a discount with a railcard.",
      "Abroad, the user prefers local SIM cards.",
    ]],
    ["travel-15", "Packing habit: the user always forgets a phone charger, so pack two.", "What item do I tend to leave behind on trips?", [
      "The user leaves the car keys behind the fruit bowl.",
      "The user tends to overpack for short trips.",
      "Items for the charity shop are in the hall.",
    ]],
    ["travel-16", "Jet lag routine: skip coffee on arrival day and walk in daylight.", "How do I cope with time zone changes after long flights?", [
      "The user copes with long flights by downloading films.",
      "Time zone for all meetings is Central European.",
      "Changes to the flight were emailed on Tuesday.",
    ]],
  ]),

  ...cases("schedule", [
    ["schedule-01", "Piano lessons for the daughter: Wednesdays at 5pm with Mr. Novak.", "When does my girl have her music class?", [
      "The music festival is on the last weekend of July.",
      "The daughter's swimming class is on Saturdays.",
      "Mr. Novak also tunes pianos.",
    ]],
    ["schedule-02", "Bin collection: recycling on alternate Mondays, general waste every Thursday.", "Which days is the rubbish picked up?", [
      "The user picks up the kids on Tuesdays and Fridays.",
      "Rubbish tips: the dump closes at 4pm on Sundays.",
      "The garden waste subscription ended in October.",
    ]],
    ["schedule-03", "The user works from the office on Tuesdays and Thursdays; otherwise remote.", "Which days am I commuting?", [
      "Commuting by bike takes 25 minutes.",
      "Days off this year: 28 plus public holidays.",
      "The office closes early on the last Friday of each month.",
    ]],
    ["schedule-04", "Choir rehearsal is every Monday evening at St. Mary's hall.", "When do I sing with the group?", [
      "The group trip to the lake is in July.",
      "The user sings lullabies to the youngest at bedtime.",
      "St. Mary's hall is also used for the Saturday market.",
    ]],
    ["schedule-05", "School term ends on 18 July; summer camp starts the week after.", "When do the kids finish classes for the year?", [
      "The kids' classes at the swimming pool finish at 11.",
      "The user finishes work early on Fridays in summer.",
      "The year-end party at work is in December.",
    ]],
    ["schedule-06", "Dental check-ups happen twice a year; the coming one is 3 October.", "When is my next teeth appointment?", [
      "The next appointment with the accountant is in January.",
      "Teeth grinding at night was mentioned by the dentist.",
      "The car's MOT appointment is on 14 October.",
    ]],
    ["schedule-07", "Every Sunday night the user plans the week's meals.", "When do I sort out the menu?", [
      "The user buys flowers for the table on Fridays.",
      "Office supplies are sorted by the facilities team.",
      "The menu at the Swan hotel changes seasonally.",
    ]],
    ["schedule-08", "Blood test at the GP surgery is on 22 May at 8am, fasting from midnight.", "When do I need to skip breakfast for a lab check?", [
      "The user skips breakfast on weekends and has brunch.",
      "Lab results from March were normal.",
      "The smoke alarm check is due every month.",
    ]],
    ["schedule-09", "The user's standing badminton game with Jonas is Thursday at 7pm.", "When is my regular racket sport match?", [
      "The tennis club's regular members get priority courts.",
      "Sport on TV is banned during dinner.",
      "The match between the kids' football teams is on Saturday.",
    ]],
    ["schedule-10", "Quiet hours: no calls or messages to the user after 21:00 on weeknights.", "What time should you stop contacting me in the evening?", [
      "The user stops work at 18:00 most days.",
      "Contact with the Nordstrand client goes through the account manager.",
      "Evening walks with Biscuit are around 20:00.",
    ]],
    ["schedule-11", "Car insurance renews on 1 March; the broker sends a quote in January.", "When does the vehicle cover need extending?", [
      "The home cover needs extending to include the new bike.",
      "Extending the lease on the flat was agreed until 2027.",
      "The vehicle's winter tyres are kept at the garage.",
    ]],
    ["schedule-12", "Mum calls every Sunday around lunchtime; keep that slot free.", "When does my mother phone me?", [
      "The user's phone contract ends in September.",
      "The user's mother-in-law visits at Easter.",
      "Lunchtime on Sundays is usually a roast.",
    ]],
    ["schedule-13", "Payday is the 25th; if it falls on a weekend, the Friday before.", "What date does my salary arrive?", [
      "Salary reviews take place in April.",
      "The parcel with the lamp should arrive on Thursday.",
      "Date night with Aiko is the first Saturday of the month.",
    ]],
    ["schedule-14", "Book club meets on the last Thursday of each month at Leonie's flat.", "When does my reading circle get together?", [
      "The user reads to the kids before bed.",
      "Getting together with old colleagues happens at Christmas.",
      "The book for next month is a Japanese detective novel.",
    ]],
    ["schedule-15", "Tax return must be filed by 31 January; the accountant needs papers by December.", "What's the deadline for sending my yearly statement to the revenue office?", [
      "Bank statements arrive by post every quarter.",
      "The deadline for the school trip payment is Friday.",
      "Sending parcels abroad from the post office takes a week.",
    ]],
    ["schedule-16", "Gym sessions: Monday, Wednesday and Friday at 6:30 before work.", "Which mornings do I train?", [
      "The train to Leeds leaves at 7:02 on weekdays.",
      "Mornings are reserved for deep work.",
      "Personal training sessions were too expensive to keep.",
    ]],
  ]),

  ...cases("food", [
    ["food-01", "The user can't stand coriander; it tastes like soap to them.", "Which herb do I hate?", [
      "The herb garden on the balcony has basil and mint.",
      "The user hates queues at the post office.",
      "Aiko grows parsley on the windowsill.",
    ]],
    ["food-02", "Favourite restaurant: Da Lucia, the Neapolitan place on Canal Street.", "Where do I most like to eat out?", [
      "The user likes to eat lunch outdoors in summer.",
      "The kids like the burger van at the market most.",
      "Canal Street has a new bike lane.",
    ]],
    ["food-03", "Tea is always Earl Grey, black, no sugar, steeped four minutes.", "What's my usual brew?", [
      "The usual pub for Friday drinks is the Anchor.",
      "Home brew kits were a gift from Marco.",
      "Coffee after 3pm keeps the user awake.",
    ]],
    ["food-04", "The user's wife is vegetarian, so family dinners are meat-free on weekdays.", "What eating restrictions does my partner have?", [
      "The user followed a low-carb diet for a month in 2023.",
      "Aiko's sister eats fish but no meat.",
      "Diet soda is banned from the house.",
    ]],
    ["food-05", "Spicy food limit: medium at most; vindaloo gave the user trouble once.", "How much chilli heat can I handle?", [
      "Heat in the flat is unbearable in August.",
      "Chilli plants on the balcony produced a big crop.",
      "The user can handle long drives without breaks.",
    ]],
    ["food-06", "Sunday roast tradition: lamb at Grandma Edith's, twice a month.", "Where do we have the weekend family dinner?", [
      "Family dinner on weekdays is at 6:30.",
      "Weekend breakfasts are pancakes.",
      "Edith's lamb recipe uses rosemary and anchovies.",
    ]],
    ["food-07", "Nut allergy in the house: the son reacts to cashews and pistachios.", "What can't my boy eat?", [
      "The boy next door eats lunch at the user's house on Tuesdays.",
      "Pistachio ice cream is Aiko's favourite.",
      "The user can eat raw onion without any trouble.",
    ]],
    ["food-08", "Wine preference: dry reds from Rioja; no sweet whites.", "Which bottle do I enjoy with dinner?", [
      "The user enjoys cooking dinner on Saturdays.",
      "Bottle deposits are returned at the supermarket.",
      "Rioja was the region of the 2019 cycling trip.",
    ]],
    ["food-09", "Breakfast is porridge with banana most days; eggs on weekends.", "What do I usually have in the morning meal?", [
      "Morning runs happen before any food.",
      "The usual lunch at work is a salad from the canteen.",
      "Morning coffee is taken on the balcony.",
    ]],
    ["food-10", "Takeaway favourite: the Sichuan place, order number 42 and dan dan noodles.", "What Chinese delivery dish do I always get?", [
      "The delivery driver leaves parcels with Fatima.",
      "The user always gets the train back from Leeds.",
      "The dish rack in the kitchen is broken.",
    ]],
    ["food-11", "Birthday cake for the daughter must be chocolate with no nuts.", "What sort of dessert does my girl want for her party?", [
      "The party for the retiring colleague is in the canteen.",
      "Dessert at the Swan hotel was a lemon tart.",
      "The girl next door wants to join the choir.",
    ]],
    ["food-12", "Cooks a big batch of lentil soup every Sunday to freeze for lunches.", "What do I make ahead in bulk?", [
      "The user makes bread by hand at Christmas.",
      "Bulk rice is bought at the Asian supermarket.",
      "Ahead of the trip, the user packed spare chargers.",
    ]],
    ["food-13", "The kids refuse mushrooms in anything, even hidden in sauce.", "What vegetable won't the children touch?", [
      "The children touch everything in museums.",
      "Vegetable peelers are in the top drawer.",
      "Sauce recipes are saved in a notebook.",
    ]],
    ["food-14", "Okonomiyaki is the signature dish of the user's wife; she makes it on Friday nights.", "What does my spouse cook best?", [
      "The best cook in the family is said to be Grandma Edith.",
      "The spouse of Helen Cho is a doctor.",
      "The user cooks curry when friends visit.",
    ]],
    ["food-15", "Grocery delivery from FreshCart every Thursday between 7 and 8pm.", "When does the supermarket order come?", [
      "The supermarket on the corner closes at 10pm.",
      "Online orders come to the office, not the flat.",
      "FreshCart substitutions are usually fine except for bread.",
    ]],
    ["food-16", "Does not drink alcohol on weeknights, only on Friday and Saturday.", "Which evenings am I allowed a glass of wine?", [
      "Wine glasses are in the top cupboard.",
      "Evenings on the balcony are nicer with the fairy lights.",
      "The user is allowed two guests at the gym each month.",
    ]],
  ]),

  ...cases("finance", [
    ["finance-01", "The user's accountant is Lionel Park at Park & Sons.", "Who does my taxes?", [
      "Taxes on the rental income are paid in two instalments.",
      "Lionel Park also advises the user's brother.",
      "Council tax went up by four percent this year.",
    ]],
    ["finance-02", "Emergency fund target is six months of expenses, kept in an easy-access savings account.", "How big should my rainy-day cushion be?", [
      "The sofa cushion covers were washed in April.",
      "Rainy days mean the kids play board games.",
      "The savings account for the kids' university has 8,000 euros.",
    ]],
    ["finance-03", "The mortgage on the buy-to-let flat stays at 1.9% fixed through 2028, with Northbank.", "Until when is my property loan rate locked?", [
      "The car loan was paid off in 2023.",
      "Property prices in the area rose eight percent.",
      "The bike lock code is 0712.",
    ]],
    ["finance-04", "Monthly pension contribution is 8 percent, matched 4 percent by the employer.", "How much do I put aside for retirement?", [
      "Retirement parties at work are held in the canteen.",
      "Put aside for the holiday: 150 euros a month.",
      "Much of the savings sit in an index fund.",
    ]],
    ["finance-05", "The user gives 30 euros a month to the Red Cross by direct debit.", "Which charity do I donate to regularly?", [
      "Regular payments for the gym come out on the 1st.",
      "The school charity run is in May.",
      "The user donated old clothes to the church sale.",
    ]],
    ["finance-06", "Shares in an S&P 500 ETF are bought every month through Trade Republic.", "How am I investing in the stock market?", [
      "The market on Saturday sells good cheese.",
      "Stock for the shop is delivered on Mondays.",
      "The user invested in a friend's bakery in 2020.",
    ]],
    ["finance-07", "The user and their wife split household bills 60/40 based on income.", "How do my spouse and I divide the costs of running the home?", [
      "Running costs of the car are about 200 euros a month.",
      "The user's spouse pays for the kids' activities.",
      "Home improvements are paid from a joint savings pot.",
    ]],
    ["finance-08", "Current debt: 4,200 left on the credit card, paying 500 a month.", "How much do I still owe?", [
      "The user still owes Marco a dinner.",
      "Much of last month's spending was on the car.",
      "The loan for the kitchen was cleared in 2022.",
    ]],
    ["finance-09", "Bank: everyday account with Monzo; savings with Marcus.", "Where is my cash kept?", [
      "Cash machines near the flat charge a fee.",
      "Spare keys are kept at Fatima's.",
      "Cash is rarely needed except for the window cleaner.",
    ]],
    ["finance-10", "The user wants to retire at 60 and move to the coast.", "At what age do I plan to stop working?", [
      "The user plans to stop drinking coffee in January.",
      "Working from home on Fridays is allowed.",
      "Age limits for the climbing wall start at eight.",
    ]],
    ["finance-11", "Subscriptions to cancel: the unused language app and the second streaming service.", "Which recurring payments am I dropping?", [
      "Recurring meetings with the sales team were dropped.",
      "Payments to the cleaner go out every Friday.",
      "The streaming service raised its price in March.",
    ]],
    ["finance-12", "Budget for the kitchen renovation is 15,000 euros, including appliances.", "How much can we spend redoing the cooking area?", [
      "Redoing the bathroom is planned for 2027.",
      "The area around the fireplace needs new tiles.",
      "The user spends about 80 euros a week on groceries.",
    ]],
    ["finance-13", "Child benefit is paid into the joint account every four weeks.", "Where does the government money for my children go?", [
      "The children's pocket money is 5 euros a week.",
      "Government forms for the passport are in the grey folder.",
      "Money from the garage sale went to the holiday fund.",
    ]],
    ["finance-14", "Rent is 1,450 a month, paid on the 1st by standing order to Eleni.", "How much is my housing payment and who gets it?", [
      "Housing costs in Bologna are high for students.",
      "Payment for the campervan deposit was made in April.",
      "Eleni raised the parking fee to 60 a month.",
    ]],
    ["finance-15", "The user's credit score dropped after a missed phone bill in 2023.", "Why did my borrowing rating fall?", [
      "The user fell on ice and hurt a knee in January.",
      "Rating agencies downgraded the bank's bonds.",
      "The user's borrowing limit on the card is 6,000.",
    ]],
    ["finance-16", "Receipts for tax-deductible expenses go in the green folder in the study.", "Where should I file invoices I can write off?", [
      "Old bank files were shredded in 2022.",
      "Write-offs for the home office were rejected by the accountant.",
      "The user can claim mileage for client visits.",
    ]],
  ]),

  ...cases("hobbies", [
    ["hobbies-01", "The user plays bass in a covers band called The Late Trains.", "What instrument do I perform on?", [
      "The instrument case was left in the rehearsal room.",
      "The user performed stand-up comedy once at university.",
      "The band rehearses on Tuesdays.",
    ]],
    ["hobbies-02", "Working on a 1,000-piece jigsaw of the Amalfi coast on the dining table.", "What puzzle am I doing at the moment?", [
      "Crossword puzzles in the Saturday paper are a ritual.",
      "At the moment, the dining chairs are being reupholstered.",
      "The Amalfi coast trip was in 2018.",
    ]],
    ["hobbies-03", "Grows tomatoes, courgettes and beans in allotment plot 17.", "What vegetables do I have in my garden patch?", [
      "The garden gate squeaks.",
      "Patch notes for the game came out on Tuesday.",
      "The allotment society charges 40 a year.",
    ]],
    ["hobbies-04", "Collects vintage fountain pens; the prize piece is a 1950s Pelikan.", "Which antique writing tools do I hoard?", [
      "Antique furniture from grandma is in storage.",
      "Writing tools for the kids are in the top drawer.",
      "The fountain in the park is switched off in winter.",
    ]],
    ["hobbies-05", "Weekend birdwatching at the estuary; last month spotted an osprey.", "Which feathered creature did I see recently on my outing?", [
      "Recent outings with the kids were to the aquarium.",
      "The user saw a fox in the garden last week.",
      "Feather pillows trigger the user's sneezing.",
    ]],
    ["hobbies-06", "Training for the Berlin marathon in September; long run on Sundays.", "Which race am I preparing for?", [
      "The kids' sack race at sports day is in June.",
      "The user is preparing a speech for Grandma Edith's party.",
      "Marathon pacing gels are in the kitchen drawer.",
    ]],
    ["hobbies-07", "Knits socks during the commute; current project is a striped pair for Oscar.", "What craft do I do on the train?", [
      "Craft supplies for the kids are in the blue box.",
      "On the train, the user usually reads the news.",
      "Socks with holes go in the rag bag.",
    ]],
    ["hobbies-08", "Plays chess online as 'quietrook', rated about 1650 blitz.", "What's my username and level in that board game?", [
      "Board games night with the neighbours is monthly.",
      "The user's username at work is jtan.",
      "Level 3 of the car park is always full.",
    ]],
    ["hobbies-09", "Restores old road bikes in the garage; currently a 1984 Peugeot frame.", "What kind of vintage bicycle project am I working on?", [
      "Bicycle lights for the daughter were ordered online.",
      "The kind of paint used for the frame is enamel.",
      "The garage roof leaks when it rains hard.",
    ]],
    ["hobbies-10", "Watercolour painting class at the community centre, Wednesday nights.", "Where do I go for art lessons?", [
      "Art supplies are kept in the sideboard.",
      "Swimming lessons for the son are at the leisure centre.",
      "The community centre hosts a flea market.",
    ]],
    ["hobbies-11", "Favourite author is Ursula K. Le Guin; rereads Earthsea every winter.", "Which novelist do I love most?", [
      "The user loves long walks on the beach.",
      "The novelist at the book festival signed copies for two hours.",
      "Most books in the house are the kids' comics.",
    ]],
    ["hobbies-12", "The user is into sourdough; the starter is named Doughvid and lives in the fridge.", "What bread hobby do I have?", [
      "The user's hobby as a teen was skateboarding.",
      "Bread knives are in the block by the stove.",
      "The fridge makes a humming noise at night.",
    ]],
    ["hobbies-13", "Goes fly fishing on the River Test twice a year with Kenji, the wife's father.", "What angling trips do I take with my spouse's dad?", [
      "Trips to the zoo are the kids' favourite.",
      "The user takes the father-in-law to the airport each spring.",
      "Kenji's boat is moored in Osaka.",
    ]],
    ["hobbies-14", "Photography: shoots film on an old Olympus OM-1 and develops at home.", "Which camera do I use for analogue pictures?", [
      "The camera in the hallway is for the doorbell.",
      "The user uses a phone for holiday snaps.",
      "Analogue clocks confuse the youngest.",
    ]],
    ["hobbies-15", "Volunteers at the food bank on the first Saturday of each month.", "Where do I help out as unpaid work?", [
      "Unpaid invoices from the freelancer are chased by finance.",
      "Out-of-hours work is paid at time and a half.",
      "The food bank needs tinned fish most.",
    ]],
    ["hobbies-16", "Sea swimming year-round with the Blue Tits club at Shell Bay.", "Which cold-water group do I join for dips?", [
      "Cold water in the shower means the boiler failed again.",
      "The user joined a running club in 2020 but left.",
      "Dips and crisps are Friday snacks.",
    ]],
  ]),

  ...cases("decisions", [
    ["decisions-01", "Decided against a second car; the family will use car-sharing instead.", "Are we buying another vehicle?", [
      "The user is buying a new tent in spring.",
      "Another parking space was offered by Eleni.",
      "The vehicle's tyres were rotated in spring.",
    ]],
    ["decisions-02", "Chose the state primary on Elm Road over the private school for the son.", "Where will my boy start his education?", [
      "Education savings for the kids are in a separate account.",
      "The son's nursery closes at 6pm.",
      "The boy starts football training in September.",
    ]],
    ["decisions-03", "The user turned down the job offer from Globex because of the commute.", "Why did I reject that employment opportunity?", [
      "The user rejected the first kitchen quote as too high.",
      "Opportunities for promotion come up in April.",
      "Globex is known for long hours.",
    ]],
    ["decisions-04", "We're keeping the old sofa another year and spending the money on new windows.", "Are we replacing the couch?", [
      "Replacing the fridge is on hold until summer.",
      "The couch in the study folds out into a bed.",
      "Windows in the kids' room let in drafts.",
    ]],
    ["decisions-05", "Agreed with Aiko: no phones at the dinner table, for adults too.", "What's our rule about screens during meals?", [
      "Screen time for the kids is one hour on school days.",
      "The rule at the gym is to wipe machines after use.",
      "Meals on Fridays are usually takeaway.",
    ]],
    ["decisions-06", "Switched energy supplier to Octopus in January for a cheaper night tariff.", "Who provides our electricity now?", [
      "The electricity meter is under the stairs.",
      "The internet provider is changing the router next month.",
      "Now the dishwasher runs at night when power is cheap.",
    ]],
    ["decisions-07", "Postponed the kitchen renovation until the spring after next.", "When will the cooking area be redone?", [
      "The area rug goes to the cleaners in March.",
      "When the bathroom is redone, the shower moves.",
      "The kitchen tap was fixed last week.",
    ]],
    ["decisions-08", "Opted for the electric hatchback over the hybrid because of the low running costs.", "Why did I go for a battery-powered car?", [
      "Battery life on the user's laptop is poor.",
      "Power cuts hit the street twice in winter.",
      "The car seat for the son was handed down from Priya.",
    ]],
    ["decisions-09", "We agreed the kids can have phones only when they start secondary school.", "At what age will my children get mobiles?", [
      "The children get pocket money on Saturdays.",
      "Mobile data on the family plan is 20 GB.",
      "Age-appropriate books are on the lower shelf.",
    ]],
    ["decisions-10", "Ruled out moving to Bristol; staying in the current neighbourhood until the kids finish school.", "Are we relocating to another city?", [
      "Another city break is planned for October.",
      "Relocation packages at work cover two months' rent.",
      "Bristol is where Aiko's sister lives.",
    ]],
    ["decisions-11", "Going with a lawyer from Hale & Rowe to draw up the wills.", "Which solicitor is handling our estate planning?", [
      "Estate agents valued the flat in March.",
      "Planning permission for the shed was not needed.",
      "A solicitor friend of Marco's offered a discount.",
    ]],
    ["decisions-12", "The family will spend Christmas with Priya in Leeds this year, not at home.", "Where are we celebrating the festive season?", [
      "The festive market opens on 1 December.",
      "Last year the family celebrated at Edith's.",
      "Season tickets for the football were too expensive.",
    ]],
    ["decisions-13", "The user declined the promotion to manager to keep coding.", "Why did I say no to leading a team?", [
      "The team said no to a Friday release.",
      "Leading the choir is the conductor, Ms. Fell.",
      "Promotion criteria are published on the intranet.",
    ]],
    ["decisions-14", "The couple agreed to alternate hosting Easter between both families.", "How do we handle the spring holiday with the in-laws?", [
      "Spring holiday camps for the kids book up fast.",
      "The in-laws prefer to stay in a hotel.",
      "Easter eggs are hidden in the garden.",
    ]],
    ["decisions-15", "Decision: the daughter may walk to school alone from next September.", "When can my girl go unaccompanied to class?", [
      "Class photos are taken in October.",
      "The daughter's class teacher is Ms. Amin.",
      "The girl next door walks her dog at 7.",
    ]],
    ["decisions-16", "Instead of a big wedding anniversary party, Aiko and the user will take a weekend in Paris.", "How are we marking our marriage milestone?", [
      "The marriage certificate is in the grey folder.",
      "Marking exams keeps Aiko's sister busy in June.",
      "Paris was also where the user proposed.",
    ]],
  ]),

  ...cases("places", [
    ["places-01", "The spare bedroom is now the home office, with the desk by the window.", "Where do I work when I'm not commuting?", [
      "Work laptops must not leave the country.",
      "Commuting in winter takes twice as long.",
      "The spare room in Edith's house has a piano.",
    ]],
    ["places-02", "Car is usually parked in bay 14 of the underground garage on Quay Street.", "Where do I leave the vehicle?", [
      "The user leaves for work at 7:45.",
      "The vehicle's service history is in the glovebox.",
      "The underground line closes at midnight.",
    ]],
    ["places-03", "The fuse box is in the cupboard under the stairs, behind the hoover.", "Where's the electrical panel?", [
      "The electrical safety check is due in 2026.",
      "The panel discussion at work was recorded.",
      "The hoover bags are in the hall cupboard.",
    ]],
    ["places-04", "The user grew up in Galway and still supports the local hurling team.", "Which town is my childhood home?", [
      "Town hall opening hours changed in March.",
      "Home is a two-bedroom flat near the canal.",
      "Childhood photos are in Edith's attic.",
    ]],
    ["places-05", "Favourite walking route: the coastal path from Sandcove to the lighthouse, 9 km.", "Which hike do I enjoy most?", [
      "A hike up Ben Nevis is planned for the Scotland trip.",
      "Most weekends involve football with the son.",
      "The lighthouse museum is closed in winter.",
    ]],
    ["places-06", "The user's office is on the fourth floor of the Meridian building, desk 4.12.", "Where exactly do I sit at work?", [
      "The user sits on the parents' council at school.",
      "Work drinks are at the Anchor on Fridays.",
      "The Meridian building has a rooftop garden.",
    ]],
    ["places-07", "The family's favourite beach is Rosscarbery, with the sheltered cove for the kids.", "Where do we go to the seaside?", [
      "The seaside town of Brighton was a day trip in 2021.",
      "The user goes to the coast for work twice a year.",
      "Sandcastles are the son's speciality.",
    ]],
    ["places-08", "The GP surgery is on Elm Road, next to the primary school.", "Where is my family doctor's practice?", [
      "The practice manager at the surgery is Ms. Hale.",
      "Doctor appointments for the kids go through Aiko.",
      "Family photos hang in the hallway.",
    ]],
    ["places-09", "Winter coats and ski gear are stored in the loft.", "Where do I put cold-weather clothing in summer?", [
      "Summer clothes for the kids come from Priya's hand-me-downs.",
      "Put the garden furniture in the shed before the storms.",
      "The loft ladder is wobbly.",
    ]],
    ["places-10", "The nearest A&E is at St. Luke's, a twelve-minute drive.", "Which hospital emergency department is closest?", [
      "The hospital car park charges by the hour.",
      "The emergency contact at work is Helen Cho.",
      "Departments at the hospital were renamed last year.",
    ]],
    ["places-11", "The user's favourite café to work from is Bean There, corner of Mill Lane.", "Where do I like to sit with my laptop outside the house?", [
      "The laptop stand is in the home office.",
      "Outside the house there's a charging point for the car.",
      "The user likes to sit by the fire in winter.",
    ]],
    ["places-12", "Honeymoon was in Kyoto; the user wants to return for the tenth anniversary.", "Where did we go right after our wedding?", [
      "Right after the wedding, the couple moved to Leeds.",
      "The wedding photographer was Aiko's cousin.",
      "Kyoto temples were crowded in April.",
    ]],
    ["places-13", "Storage unit 22B at SafeStore holds the books and the old cot.", "Where did we put extra belongings that did not fit at home?", [
      "Extra chairs for parties are borrowed from Fatima.",
      "Belongings of grandfather were donated to charity.",
      "Shoes that do not fit the son go to a cousin.",
    ]],
    ["places-14", "The best playground is in Victoria Park, near the east gate.", "Where do I take the little ones to climb and swing?", [
      "The little ones take a nap at 1pm.",
      "Victoria Park hosts a running race in May.",
      "Swing dance classes were a wedding gift.",
    ]],
    ["places-15", "Parents live in a bungalow in Cork, forty minutes from the airport.", "Where is my mum and dad's house?", [
      "Mum's birthday is in November.",
      "The house next to the parents' is for sale.",
      "Cork airport has direct flights to Amsterdam.",
    ]],
    ["places-16", "Aiko, the user's wife, works at the hospital pharmacy on Clifton Road.", "Where is my spouse employed?", [
      "Aiko's job involves night shifts twice a month.",
      "The user's spouse grew up in Osaka.",
      "Employees at the hospital get free parking.",
    ]],
  ]),

  ...cases("purchases", [
    ["purchases-01", "Bought a cargo bike (Urban Arrow) in April for the school run.", "What did I get recently for taking the kids around?", [
      "The kids get around town by bus now.",
      "Recent purchases are logged in the budget sheet.",
      "Taking the kids to school is Aiko's job on Mondays.",
    ]],
    ["purchases-02", "The washing machine is a Bosch Serie 6, bought 2021, warranty until 2026.", "When does the laundry appliance guarantee end?", [
      "Laundry day is Sunday.",
      "The dishwasher guarantee ended last year.",
      "Appliance manuals are in a kitchen drawer.",
    ]],
    ["purchases-03", "Returned the noise-cancelling headphones; the left cup crackled.", "What audio gear did I send back and why?", [
      "The audio on the TV lags behind the picture.",
      "Back-to-school shoes were bought in August.",
      "The replacement earbuds arrived on Friday.",
    ]],
    ["purchases-04", "Wishlist: a Moccamaster filter machine, around 250 euros.", "Which coffee maker do I want to buy?", [
      "The user wants to buy a cheaper phone plan.",
      "The coffee maker at work is always broken.",
      "The maker space downtown has a laser cutter.",
    ]],
    ["purchases-05", "Son's school shoes ordered from Clarks in a 34.", "What footwear size does my boy need?", [
      "Size medium fits the daughter's swimsuit.",
      "The son needs a new football kit.",
      "Footwear for hiking is in the hallway.",
    ]],
    ["purchases-06", "Laptop: a 2023 ThinkPad X1 Carbon, bought refurbished for 900.", "What computer do I own and what did it cost?", [
      "The family computer in the study is shared by the kids.",
      "The cost of the roof repair was 1,200 euros.",
      "Own-label batteries last half as long.",
    ]],
    ["purchases-07", "Subscribed to a veg box from Riverford, every other Wednesday.", "How do fresh greens get delivered to me?", [
      "Greens fees at the golf club went up.",
      "Fresh flowers get delivered for Edith's birthday.",
      "The box room is full of camping gear.",
    ]],
    ["purchases-08", "Mattress bought in 2019 from Simba; the 100-night trial is long over.", "How old is the bed I sleep on?", [
      "The son sleeps in a bunk bed.",
      "Old bedding goes to the animal shelter.",
      "Sleep has improved since blackout curtains went up.",
    ]],
    ["purchases-09", "The TV is a 55-inch LG OLED, mounted above the fireplace in 2022.", "What screen do we watch films on?", [
      "Films on the flight were mostly old.",
      "The user watches football at the pub.",
      "The fireplace was swept in October.",
    ]],
    ["purchases-10", "Planning to buy a heat pump once the government grant is approved.", "What big home upgrade am I waiting on funding for?", [
      "The user is waiting on a refund from the airline.",
      "Funding for the school roof came from a bake sale.",
      "A big home upgrade last year was the new windows.",
    ]],
    ["purchases-11", "Bought a secondhand piano for the daughter from a neighbour for 400.", "What musical instrument did we acquire and what did we pay?", [
      "Music streaming is paid yearly.",
      "The user pays the window cleaner in cash.",
      "The daughter's recorder is in her school bag.",
    ]],
    ["purchases-12", "The wedding ring was resized at Keane's jewellers in May.", "Where was my marriage band made smaller?", [
      "The watch strap was adjusted at the market stall.",
      "The user got a new band for the fitness tracker.",
      "Keane's also sells watches.",
    ]],
    ["purchases-13", "A Vitamix blender arrived broken; the replacement is due next week.", "Which kitchen gadget is being swapped?", [
      "Swapping shifts with a colleague was approved.",
      "The kitchen scales need a new battery.",
      "Smoothies are the daughter's favourite breakfast.",
    ]],
    ["purchases-14", "Bought tickets for the Coldplay concert in Dublin, 22 August, four seats.", "Which gig are we going to see this summer?", [
      "The kids want to see the new animated film.",
      "Gig tickets for the daughter's school band are free.",
      "The user is going to Lisbon for work in summer.",
    ]],
    ["purchases-15", "Booked a new boiler installation for 5 June; quote was 3,200.", "When is the heating system being replaced?", [
      "The system at work will be replaced by a new HR tool.",
      "The heating comes on at 6am in winter.",
      "The boiler pressure drops every few weeks.",
    ]],
    ["purchases-16", "The user's phone is a Pixel 8 bought outright; the SIM-only plan costs 12 a month.", "Which handset do I carry, and what's the contract price?", [
      "The contract for the flat runs until 2027.",
      "The handset for the landline needs new batteries.",
      "Prices at the corner shop went up.",
    ]],
  ]),

  ...cases("preferences", [
    ["preferences-01", "The user wants answers to start with the conclusion, then the reasoning.", "How should responses be ordered?", [
      "Response times from the support team are slow.",
      "The user should order a new passport before the summer.",
      "Reasoning puzzles are the son's favourite.",
    ]],
    ["preferences-02", "Call the user Jo, never Johanna.", "What short form of their first name do they go by?", [
      "The short form of the company name is on the badge.",
      "Johanna's middle name comes from a grandmother.",
      "Full name on the passport includes a hyphen.",
    ]],
    ["preferences-03", "Music while working: instrumental lo-fi or film scores, nothing with lyrics.", "What should play in the background when I focus?", [
      "The kids play outside after school.",
      "Background checks for the new job took three weeks.",
      "Focus mode on the phone silences everything but family.",
    ]],
    ["preferences-04", "Favourite colour is deep green; avoid pink for gifts.", "Which hue do I like best?", [
      "The user likes the best seat at the cinema, middle row.",
      "The hue of the new paint in the hall is grey.",
      "Pink lemonade is the daughter's favourite.",
    ]],
    ["preferences-05", "The user wants reminders by push notification, not email.", "Which channel should alerts about to-dos come through?", [
      "Alerts from the bank come by text message.",
      "The TV channel for the football is on the sports package.",
      "Email newsletters are filtered into a folder.",
    ]],
    ["preferences-06", "Dislikes small talk at the start of calls; get to the point.", "How do I feel about chit-chat before meetings?", [
      "Meetings before nine are declined.",
      "The user feels tired after long meetings.",
      "Chit-chat with neighbours happens at the bins.",
    ]],
    ["preferences-07", "The user likes spoilers: summarise endings freely.", "Is it okay to reveal the plot twist of a book or show?", [
      "The show at the school is on 12 December.",
      "Reveal parties for babies are not the user's thing.",
      "Twist-off caps are easier for Edith.",
    ]],
    ["preferences-08", "Gift preference: experiences over objects; the user hates clutter.", "What kind of presents do I appreciate?", [
      "Presents for the kids are hidden in the loft.",
      "The user appreciates a handwritten thank-you card.",
      "A kind neighbour waters the plants in August.",
    ]],
    ["preferences-09", "Temperature at home: bedroom cool at 17 degrees, living room 21.", "How warm do I like the sleeping area?", [
      "The user likes warm socks in winter.",
      "The sleeping bags are in the loft.",
      "Warm milk helps the son fall asleep.",
    ]],
    ["preferences-10", "News: reads the Guardian and listens to a daily economics podcast; no TV news.", "Where do I get current affairs?", [
      "The user gets the local paper on Saturdays for the puzzles.",
      "Current affairs quizzes at the pub are on Wednesdays.",
      "TV is mainly for cartoons in this house.",
    ]],
    ["preferences-11", "Humour: enjoys dry, deadpan jokes; dislikes sarcasm aimed at people.", "What sort of comedy do I find funny?", [
      "Funny videos of cats are shared in the family chat.",
      "The user finds museums tiring.",
      "Sort the recycling before Monday.",
    ]],
    ["preferences-12", "Scents: no perfume or scented candles — they trigger sneezing.", "Which fragrances should I stay away from?", [
      "The user stays away from the town centre on Saturdays.",
      "Fragrance-free detergent is used for the son's eczema.",
      "Should guests visit, the sofa bed is in the study.",
    ]],
    ["preferences-13", "Likes early starts: most productive between 6 and 9 in the morning.", "When am I at my sharpest?", [
      "The sharpest knife is the Japanese one.",
      "The user is at the allotment most Sunday mornings.",
      "The sharpest drop in the pension fund was in 2022.",
    ]],
    ["preferences-14", "Prefers paying by card everywhere; carries almost no coins.", "Do I use cash or plastic?", [
      "Plastic bags are reused for the bins.",
      "The user uses a money clip, a gift from Kenji.",
      "Cash gifts for the kids go into their savings.",
    ]],
    ["preferences-15", "Hates being called 'buddy' or 'mate' by support agents.", "Which casual forms of address annoy me?", [
      "Casual Fridays at work mean jeans.",
      "Loud chewing annoys the user.",
      "The user's formal name appears on contracts.",
    ]],
    ["preferences-16", "Movie nights: the user picks thrillers, Aiko picks documentaries, alternating weeks.", "What film genre do I choose?", [
      "The user chose the paint colour for the hall.",
      "Genre fiction fills most of the shelves.",
      "The film club at school meets on Thursdays.",
    ]],
  ]),
];
