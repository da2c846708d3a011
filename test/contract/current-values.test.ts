import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { DAY, storeOne, uniqueNs } from "../helpers/contract";

/** Current values: a memory that a newer one replaces ranks below it, and says so (docs/retrieval.md › Current values). */
describeEngines("current values", (engine) => {
  let service: TestService;
  let client: Client;
  beforeAll(async () => {
    service = await startService(engine);
    client = new Client(service);
  });
  afterAll(() => service.stop());

  const relate = async (source: string, target: string, relation_type: string) =>
    expect((await client.post(`/v1/memories/${source}/relations`, { target_id: target, relation_type })).status).toBe(201);
  const recallIds = async (query: string, namespace: string, limit = 5) => {
    const res = await client.post("/v1/recall", { query, namespace, limit });
    expect(res.status).toBe(200);
    return res.body.memories as { id: string; similarity: number; access_count: number; superseded_by?: string; _signals: Record<string, number> }[];
  };

  test("a superseded memory ranks below its replacement, keeps its place in list and says what replaced it", async () => {
    const namespace = uniqueNs("moved");
    const berlin = await storeOne(client, { content: "User lives in Berlin.", namespace });
    await storeOne(client, { content: "User enjoys hiking on weekends.", namespace });
    service.advance(30 * DAY);
    const lisbon = await storeOne(client, { content: "User moved to Lisbon last month.", namespace });
    // before the relation: nothing says Lisbon replaces Berlin
    expect((await recallIds("Where does the user live? Berlin", namespace)).find((m) => m.id === berlin)?.superseded_by).toBeUndefined();
    await relate(lisbon, berlin, "supersedes");

    for (const query of ["Where does the user live?", "Where does the user live? Berlin", "Where did the user live before?"]) {
      const found = await recallIds(query, namespace);
      const ids = found.map((m) => m.id);
      expect(ids).toContain(berlin); // the past stays askable
      expect(ids.indexOf(lisbon)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(lisbon)).toBeLessThan(ids.indexOf(berlin));
      const old = found.find((m) => m.id === berlin)!;
      expect(old.superseded_by).toBe(lisbon);
      expect(old.similarity).toBeLessThan(found.find((m) => m.id === lisbon)!.similarity);
      // the product identity of the spec's score still holds with the lowered context_importance
      const s = old._signals;
      const [wv, wk] = s.keyword! > 0.3 ? [0.45, 0.35] : [0.55, 0.25];
      const accessBoost = Math.min(1 + 0.1 * old.access_count, 2);
      expect(old.similarity).toBeCloseTo((s.vector! * wv + s.keyword! * wk + s.recency! * 0.2) * s.context_importance! * accessBoost * s.type_decay!, 9);
      expect(found.find((m) => m.id === lisbon)!.superseded_by).toBeUndefined();
    }

    const context = await client.post("/v1/context", { query: "Where does the user live?", namespace });
    expect(context.status).toBe(200);
    expect(context.body.context.indexOf("Lisbon")).toBeLessThan(context.body.context.indexOf("Berlin"));

    expect((await client.get(`/v1/memories/${berlin}`)).body).toMatchObject({ id: berlin, superseded_by: lisbon, supersedes: [] });
    expect((await client.get(`/v1/memories/${lisbon}`)).body).toMatchObject({ id: lisbon, superseded_by: null, supersedes: [berlin] });
    const listed = (await client.get(`/v1/memories?namespace=${namespace}`)).body.memories.map((m: { id: string }) => m.id);
    expect(listed).toContain(berlin);
  });

  test("a replacement the searches did not find joins the answer above the memory it replaces", async () => {
    const namespace = uniqueNs("pulled");
    const old = await storeOne(client, { content: "The release deadline is June 7.", namespace });
    for (let i = 0; i < 12; i++) await storeOne(client, { content: `Meeting note ${i}: the team discussed item ${i * 7} of the roadmap.`, namespace });
    service.advance(7 * DAY);
    const replacement = await storeOne(client, { content: "Schedule change: shipping slips by one week.", namespace });
    await relate(replacement, old, "supersedes");
    const ids = (await recallIds("release deadline June 7", namespace, 2)).map((m) => m.id);
    expect(ids).toEqual([replacement, old]);
  });

  test("a chain settles in order, and a later correction (contradicts) replaces but an earlier one does not", async () => {
    const namespace = uniqueNs("chain");
    const v1 = await storeOne(client, { content: "The project uses Postgres 14.", namespace });
    service.advance(DAY);
    const v2 = await storeOne(client, { content: "The project upgraded to Postgres 15.", namespace });
    service.advance(DAY);
    const v3 = await storeOne(client, { content: "The project now runs Postgres 16.", namespace });
    await relate(v2, v1, "supersedes");
    await relate(v3, v2, "supersedes");
    const ids = (await recallIds("Which Postgres version does the project use?", namespace)).map((m) => m.id);
    expect(ids.slice(0, 3)).toEqual([v3, v2, v1]);
    expect((await client.get(`/v1/memories/${v2}`)).body).toMatchObject({ superseded_by: v3, supersedes: [v1] });

    const correctionNs = uniqueNs("correction");
    const older = await storeOne(client, { content: "User's dentist appointment is on Monday.", namespace: correctionNs });
    service.advance(DAY);
    const newer = await storeOne(client, { content: "User's dentist appointment is on Tuesday.", namespace: correctionNs });
    // the older memory "contradicting" the newer one replaces nothing: a correction comes later
    await relate(older, newer, "contradicts");
    expect((await client.get(`/v1/memories/${newer}`)).body.superseded_by).toBeNull();
    await relate(newer, older, "contradicts");
    expect((await client.get(`/v1/memories/${older}`)).body.superseded_by).toBe(newer);
    const found = await recallIds("When is the dentist appointment?", correctionNs);
    expect(found[0]!.id).toBe(newer);
  });

  test("store with auto_relate links a new value to the old one, and leaves other attributes alone", async () => {
    const namespace = uniqueNs("auto");
    const berlin = await storeOne(client, { content: "User lives in Berlin.", namespace });
    const sister = await storeOne(client, { content: "User has a sister Julia.", namespace });
    service.advance(DAY);
    const moved = await client.post("/v1/store", { content: "User moved to Lisbon.", namespace, auto_relate: true });
    expect(moved.status).toBe(201);
    expect(moved.body.relations_created).toBe(1);
    expect((await client.get(`/v1/memories/${berlin}`)).body.superseded_by).toBe(moved.body.id);
    const brother = await client.post("/v1/store/batch", { memories: [{ content: "User has a brother Luis.", namespace }], auto_relate: true });
    expect(brother.status).toBe(201);
    expect(brother.body.relations_created).toBe(0);
    expect((await client.get(`/v1/memories/${sister}`)).body.superseded_by).toBeNull();
    // without auto_relate nothing is inferred, and the reply has no relations_created
    const plain = await client.post("/v1/store", { content: "User moved to Porto.", namespace });
    expect(plain.body.relations_created).toBeUndefined();
    expect(plain.body.id).toBeString();
    expect((await client.post("/v1/store", { content: "x", auto_relate: "yes" })).status).toBe(422);
  });

  test("without an LLM, the embedding model links a new named value the rules cannot place, and nothing that adds up", async () => {
    const namespace = uniqueNs("judged");
    const chrome = await storeOne(client, { content: "User browses the web with Chrome.", namespace });
    const sister = await storeOne(client, { content: "User has a sister Julia.", namespace });
    const rent = await storeOne(client, { content: "User's rent is €1,080 a month.", namespace });
    service.advance(DAY);
    const firefox = await client.post("/v1/store", { content: "User's browser is Firefox now.", namespace, auto_relate: true });
    expect(firefox.body.relations_created).toBe(1);
    expect((await client.get(`/v1/memories/${chrome}`)).body.superseded_by).toBe(firefox.body.id);
    // a person adds up; an amount alone is not judged (the model reads any two monthly sums as alike)
    const more = await client.post("/v1/store/batch", { memories: [{ content: "User has a brother Luis now.", namespace }, { content: "User's salary is €4,000 a month now.", namespace }], auto_relate: true });
    expect(more.status).toBe(201);
    expect(more.body.relations_created).toBe(0);
    for (const id of [sister, rent]) expect((await client.get(`/v1/memories/${id}`)).body.superseded_by).toBeNull();
    const ids = (await recallIds("Which web browser does the user use?", namespace)).map((m) => m.id);
    expect(ids.indexOf(firefox.body.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(firefox.body.id)).toBeLessThan(ids.indexOf(chrome));
  });


  test("auto_relate: a value that replaces the same old value as an earlier one replaces that one too", async () => {
    const namespace = uniqueNs("chain");
    const volvo = await storeOne(client, { content: "User's car is a Volvo XC40", namespace });
    await storeOne(client, { content: "User has a sister Julia.", namespace });
    service.advance(DAY);
    const tesla = await client.post("/v1/store", { content: "User traded in the Volvo XC40 for a Tesla", namespace, auto_relate: true });
    service.advance(DAY);
    // the rules alone do not tell that "new car" and "traded … for a Tesla" name the same attribute;
    // that both replace the Volvo does
    const polestar = await client.post("/v1/store", { content: "User's new car is a Polestar 2", namespace, auto_relate: true });
    expect(polestar.body.relations_created).toBe(2);
    expect((await client.get(`/v1/memories/${volvo}`)).body.superseded_by).toBe(polestar.body.id);
    expect((await client.get(`/v1/memories/${tesla.body.id}`)).body).toMatchObject({ superseded_by: polestar.body.id });
    expect((await client.get(`/v1/memories/${polestar.body.id}`)).body.supersedes.sort()).toEqual([volvo, tesla.body.id].sort());
    const ids = (await recallIds("What car does the user drive?", namespace)).map((m) => m.id);
    expect(ids[0]).toBe(polestar.body.id);
  });
  test("suggested lists a replaced memory after the memory that replaces it", async () => {
    const namespace = uniqueNs("suggested");
    const old = await storeOne(client, { content: "The team's standup is at 9:00.", namespace, importance: 0.9 });
    const replacement = await storeOne(client, { content: "The team's standup moved to 9:30.", namespace, importance: 0.4 });
    const order = async () => ((await client.get(`/v1/suggested?namespace=${namespace}&category=fresh`)).body.suggested as { id: string }[]).map((m) => m.id);
    expect(await order()).toEqual([old, replacement]); // by importance
    await relate(replacement, old, "supersedes");
    expect(await order()).toEqual([replacement, old]);
  });

  test("another wallet's replacement is not seen: relations stay inside the wallet", async () => {
    const namespace = uniqueNs("isolated");
    const mine = await storeOne(client, { content: "User works as a nurse.", namespace });
    const other = new Client(service);
    const theirs = await other.post("/v1/store", { content: "User now works as a teacher.", namespace });
    expect((await other.post(`/v1/memories/${theirs.body.id}/relations`, { target_id: mine, relation_type: "supersedes" })).status).toBe(404);
    expect((await client.get(`/v1/memories/${mine}`)).body.superseded_by).toBeNull();
    expect((await other.get(`/v1/memories/${mine}`)).status).toBe(404);
  });
});
