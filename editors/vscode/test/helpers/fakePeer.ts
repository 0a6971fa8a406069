// A scripted JSON-RPC peer for SessionStore tests, and a bounded wait on the store.
import type { Disposable, RpcPeer } from "../../src/client/connection";
import type { SessionStore } from "../../src/client/store";

type Handler = (params: any) => unknown;

/**
 * A scripted peer: requests go to per-method handlers; the test emits
 * notifications. Like vscode-jsonrpc, it keeps one handler per method.
 */
export class FakePeer implements RpcPeer {
  readonly calls: Array<{ method: string; params: any }> = [];
  private readonly subs = new Map<string, (p: any) => void>();
  constructor(readonly handlers: Record<string, Handler>) {}

  async sendRequest<R>(method: string, params?: unknown): Promise<R> {
    this.calls.push({ method, params });
    const h = this.handlers[method];
    if (!h) throw { code: -32601, message: `no handler for ${method}` };
    return (await h(params)) as R;
  }

  onNotification(method: string, handler: (params: any) => void): Disposable {
    this.subs.set(method, handler);
    return { dispose: () => this.subs.delete(method) };
  }

  emit(method: string, params: Record<string, unknown>): void {
    this.subs.get(method)?.(params);
  }

  called(method: string) {
    return this.calls.filter((c) => c.method === method);
  }
}

export function appError(code: string) {
  return { code: -32000, message: code.replace(/_/g, " "), data: { code } };
}

/** Resolves once `cond` holds after a store change; bounded so a broken store fails, not hangs. */
export function until(store: SessionStore, cond: () => boolean, what: string): Promise<void> {
  if (cond()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, 2000);
    const sub = store.onDidChange(() => {
      if (!cond()) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}
