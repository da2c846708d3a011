import { describe, expect, test } from "bun:test";
import { newMemory, type Memory } from "../../src/domain/memory";
import type { Page } from "../../src/domain/store-port";
import { exportStream } from "../../src/http/operations/export";

const memories: Memory[] = Array.from({ length: 600 }, (_, i) =>
  newMemory({ user_id: "u1", content: `note ${i}`, memory_type: "general" }, new Date(Date.UTC(2026, 0, 1) - i * 1000).toISOString()),
);

/** A memories port over a fixed list whose list call fails from `failFrom` on. */
const port = (failFrom = Infinity) => ({
  memories: {
    async list(_user: string, _filter: object, page: Page) {
      if (page.offset >= failFrom) throw new Error("store went away");
      return { memories: memories.slice(page.offset, page.offset + page.limit), total: memories.length };
    },
  },
});
const deps = (failFrom?: number) => port(failFrom) as unknown as Parameters<typeof exportStream>[0];

describe("the export stream", () => {
  test("is written page by page into one JSON answer that holds every memory once", async () => {
    const body = (await (await exportStream(deps(), "u1", {})).json()) as { count: number; memories: { id: string }[] };
    expect(body.count).toBe(600);
    expect(body.memories.map((m) => m.id)).toEqual(memories.map((m) => m.id));
  });

  test("a store failing on the first page rejects before any answer is sent", async () => {
    await expect(exportStream(deps(0), "u1", {})).rejects.toThrow("store went away");
  });

  test("a store failing on a later page breaks the stream: never a shorter body that parses as whole", async () => {
    const res = await exportStream(deps(250), "u1", {}, "csv");
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow("store went away");
  });
});
