import { EventEmitter } from "node:events";

export interface ToolCall {
  id: string;
  name: string;
  arguments: object | string;
}

export interface Reply {
  /** Streamed as one content delta per string. */
  text?: string | string[];
  toolCalls?: ToolCall[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Send the first text piece, then wait for release() (or the client closing). */
  hold?: boolean;
  /** Answer this HTTP status with an error body instead of a stream. */
  status?: number;
  error?: string;
}

export class FakeOpenAI extends EventEmitter {
  readonly replies: Reply[];
  readonly requests: any[];
  readonly authorizations: string[];
  readonly aborted: number;
  port: number;
  baseUrl: string;
  listen(): Promise<this>;
  script(...replies: Reply[]): this;
  release(): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  waitForHeld(timeoutMs?: number): Promise<void>;
  waitForAborted(count?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function startFakeOpenAI(...replies: Reply[]): Promise<FakeOpenAI>;
