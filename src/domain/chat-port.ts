/**
 * What the domain needs from a chat model (src/llm implements it for OpenAI-compatible endpoints;
 * tests stand in with scripted doubles).
 */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatResult {
  content: string;
  usage: ChatUsage;
}

export interface ChatOptions {
  /** Ask for `response_format: {type: "json_object"}`. */
  json?: boolean;
  temperature?: number;
  maxTokens?: number;
}

export interface ChatCompleter {
  complete(messages: ChatMessage[], opts?: ChatOptions): Promise<ChatResult>;
}
