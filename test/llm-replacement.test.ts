import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatCompleter, ChatMessage } from "../src/domain/chat-port.ts";
import { LlmReplacementJudge } from "../src/domain/ingest/llm-replacement.ts";
import { Client, startService, sqliteEngine, type TestService } from "./helpers/harness";

/** A chat model that answers from a function of the user message (the JSON the judge sends). */
function scripted(answer: (input: { existing: { id: number; text: string }[]; new: string }) => string): ChatCompleter & { calls: ChatMessage[][] } {
  const calls: ChatMessage[][] = [];
  return {
    calls,
    async complete(messages) {
      calls.push(messages);
      return { content: answer(JSON.parse(messages.at(-1)!.content)), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    },
  };
}

describe("the LLM's replacement check", () => {
  test("sends the new fact and the existing ones with ids, and keeps only valid, distinct ids", async () => {
    const model = scripted(() => JSON.stringify({ replaces: [1, 1, 7, -1] }));
    const judge = new LlmReplacementJudge(model);
    expect(await judge.replaced("User's new car is a Polestar", ["User has a sister Julia", "User drives a Volvo"])).toEqual([1]);
    const sent = JSON.parse(model.calls[0]!.at(-1)!.content);
    expect(sent).toEqual({ existing: [{ id: 0, text: "User has a sister Julia" }, { id: 1, text: "User drives a Volvo" }], new: "User's new car is a Polestar" });
    expect(model.calls[0]![0]!.role).toBe("system");
  });

  test("a failure or a reply of another shape replaces nothing, and says so in the log", async () => {
    const warnings: string[] = [];
    const log = (message: string) => void warnings.push(message);
    for (const reply of ["not json", JSON.stringify({ replaces: "1" }), JSON.stringify({ other: [] })]) {
      expect(await new LlmReplacementJudge(scripted(() => reply), log).replaced("x", ["y"])).toEqual([]);
    }
    const failing: ChatCompleter = { complete: async () => Promise.reject(new Error("HTTP 500")) };
    expect(await new LlmReplacementJudge(failing, log).replaced("x", ["y"])).toEqual([]);
    expect(warnings.length).toBe(4);
    // nothing to compare with: no call at all
    const idle = scripted(() => "{}");
    expect(await new LlmReplacementJudge(idle).replaced("x", [])).toEqual([]);
    expect(idle.calls.length).toBe(0);
  });
});

describe("store auto_relate with an LLM configured", () => {
  // An OpenAI-compatible peer on loopback: replaces the existing fact about the car, nothing else.
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { messages: ChatMessage[] };
      const input = JSON.parse(body.messages.at(-1)!.content) as { existing: { id: number; text: string }[]; new: string };
      const replaces = /car|Polestar/.test(input.new) ? input.existing.filter((e) => /Volvo/.test(e.text)).map((e) => e.id) : [];
      return Response.json({ choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ replaces }) }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    },
  });
  let service: TestService;
  let client: Client;
  beforeAll(async () => {
    service = await startService(sqliteEngine, { LLM_BASE_URL: `http://127.0.0.1:${server.port}/v1`, LLM_MODEL: "stub" });
    client = new Client(service);
  });
  afterAll(async () => {
    await service.stop();
    await server.stop(true);
  });

  test("a change the offline rules miss is linked as supersedes, and recall answers with the new value", async () => {
    const volvo = (await client.post("/v1/store", { content: "User drives a Volvo." })).body.id as string;
    const sister = (await client.post("/v1/store", { content: "User has a sister Julia." })).body.id as string;
    service.advance(86_400_000);
    const polestar = await client.post("/v1/store", { content: "User's new car is a Polestar.", auto_relate: true });
    expect(polestar.status).toBe(201);
    expect((await client.get(`/v1/memories/${volvo}`)).body.superseded_by).toBe(polestar.body.id);
    expect((await client.get(`/v1/memories/${sister}`)).body.superseded_by).toBeNull();
    const found = (await client.post("/v1/recall", { query: "What car does the user drive?", limit: 5 })).body.memories as { id: string }[];
    const ids = found.map((m) => m.id);
    expect(ids.indexOf(polestar.body.id)).toBeLessThan(ids.indexOf(volvo));
  });
});
