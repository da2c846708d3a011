import { DEFAULT_EMBEDDING_MODEL } from "../../src/embed/model-ids.ts";
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { embedderOptions } from "../../src/embed/embedder";

const base = { DATA_DIR: "/tmp/engram-config-test" };

function problems(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("embedding provider settings", () => {
  test("openai:<model> without EMBEDDING_BASE_URL is refused, naming the variable", () => {
    expect(problems({ EMBEDDING_MODEL: "openai:nomic-embed-text" })).toContain("EMBEDDING_BASE_URL: required when EMBEDDING_MODEL is openai:<model>");
  });

  test("openai: with no model name is refused", () => {
    expect(problems({ EMBEDDING_MODEL: "openai:", EMBEDDING_BASE_URL: "http://127.0.0.1:11434/v1" })).toContain('name the model after "openai:"');
  });

  test("a base URL that is not http(s) is refused", () => {
    expect(problems({ EMBEDDING_MODEL: "openai:m", EMBEDDING_BASE_URL: "127.0.0.1:11434/v1" })).toContain("EMBEDDING_BASE_URL=");
  });

  test("a complete setting loads and reaches the embedder's options; local models need neither variable", () => {
    const config = loadConfig({ ...base, EMBEDDING_MODEL: "openai:m", EMBEDDING_BASE_URL: "http://127.0.0.1:8080/v1", EMBEDDING_API_KEY: "k" });
    expect(embedderOptions(config)).toMatchObject({ model: "openai:m", baseUrl: "http://127.0.0.1:8080/v1", apiKey: "k" });
    const local = embedderOptions(loadConfig(base));
    expect(local.model).toBe(DEFAULT_EMBEDDING_MODEL);
    expect(local.baseUrl).toBeUndefined();
    expect(local.apiKey).toBeUndefined();
  });
});
