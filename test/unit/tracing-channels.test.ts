import { describe, expect, test } from "bun:test";
import diagnosticsChannel from "node:diagnostics_channel";
import { defineTracingHasSubscribers } from "../../src/store/redis/tracing-channels";

describe("TracingChannel.hasSubscribers (what node-redis checks before tracing a command)", () => {
  test("false without subscribers, true while any of the five channels has one, as in Node", () => {
    defineTracingHasSubscribers();
    const channel = diagnosticsChannel.tracingChannel(`engram:test-${crypto.randomUUID()}`) as unknown as { hasSubscribers: boolean };
    expect(channel.hasSubscribers).toBe(false);
    const handlers = { asyncEnd: () => {} };
    (channel as unknown as diagnosticsChannel.TracingChannel).subscribe(handlers);
    expect(channel.hasSubscribers).toBe(true);
    (channel as unknown as diagnosticsChannel.TracingChannel).unsubscribe(handlers);
    expect(channel.hasSubscribers).toBe(false);
    // the channel node-redis traces commands on
    expect((diagnosticsChannel.tracingChannel("node-redis:command") as unknown as { hasSubscribers: boolean }).hasSubscribers).toBe(false);
  });
});
