// oidc-provider ships no type declarations; we use a small, explicitly loose surface of it.
declare module 'oidc-provider' {
  // biome-ignore lint/suspicious/noExplicitAny: oidc-provider ships no types; this file declares only what siteline calls
  type Any = any;
  export default class Provider {
    constructor(issuer: string, configuration: Any);
    proxy: boolean;
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>;
    interactionDetails(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<Any>;
    interactionResult(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, result: Any, opts?: Any): Promise<string>;
    interactionFinished(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, result: Any, opts?: Any): Promise<void>;
    on(event: string, fn: (...args: Any[]) => void): void;
    Grant: Any;
    Client: Any;
  }
  export const errors: Any;
}
