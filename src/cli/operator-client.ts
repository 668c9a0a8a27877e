// The CLI as the machine's operator (src/staff/operator-credential.ts): on the machine where the
// service runs, the staff commands read the credential the running server wrote into its data
// directory and call its staff API with it, at the loopback address the file names. node:http, not
// fetch: the request must name the service's own host (fetch cannot set Host), which the server's
// Host check (DNS-rebinding protection) requires when the public base URL is not localhost.
import http from 'node:http';
import os from 'node:os';
import type { OperatorFile } from '../staff/operator-credential.ts';
import { ServiceError, ServiceUnreachableError } from './service-client.ts';

export class OperatorClient {
  constructor(private readonly file: OperatorFile) {}

  get url(): string {
    return this.file.url;
  }

  async requestJson<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const target = new URL(path, this.file.url);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        target,
        {
          method,
          headers: {
            host: new URL(this.file.baseUrl).host,
            authorization: `Bearer ${this.file.token}`,
            'x-siteline-operator': `${os.userInfo().username}@${os.hostname()}`,
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', (e) => reject(new ServiceUnreachableError(this.file.url, { cause: e })));
      req.end(payload);
    });
    let parsed: unknown = null;
    try {
      parsed = answer.text ? JSON.parse(answer.text) : null;
    } catch {
      parsed = null;
    }
    if (answer.status >= 200 && answer.status < 300) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ServiceError(error?.message ?? `HTTP ${answer.status}`, answer.status, error?.code, parsed);
  }

  async close(): Promise<void> {}
}
