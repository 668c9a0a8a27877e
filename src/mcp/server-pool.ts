// Reuses built SDK server instances for 2026-07-28 exchanges instead of building one per request.
// The SDK refuses an instance that is still serving (createMcpHandler checks `transport`), and
// re-seeds each exchange's negotiated version and client capabilities from its own _meta envelope,
// so an idle instance (closed transport) is safe to hand out again. 2025-leg instances are built
// per request: that leg keeps per-connection client state from initialize.
import type { Server } from '@modelcontextprotocol/server';

export class ServerPool {
  private readonly idle: Server[] = [];
  built = 0;

  constructor(
    private readonly build: () => Server,
    private readonly maxIdle = 64,
  ) {}

  acquire(): Server {
    const reused = this.idle.pop();
    if (reused) return reused;
    const server = this.build();
    this.built++;
    const previous = server.onclose;
    // The SDK chains its own per-exchange onclose in front of this one; ours runs when the exchange ends.
    server.onclose = () => {
      previous?.();
      if (server.transport === undefined && this.idle.length < this.maxIdle && !this.idle.includes(server)) this.idle.push(server);
    };
    return server;
  }

  get idleCount(): number {
    return this.idle.length;
  }
}
