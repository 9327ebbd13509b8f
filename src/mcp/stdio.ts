/**
 * The MCP server's stdio transport (docs/coding-agents.md): one JSON-RPC message per line on
 * stdin, one per line on stdout. The SDK's own StdioServerTransport drops a line that is no
 * JSON, or no JSON-RPC message, without a word, and on a message over its 10 MiB buffer
 * closes the transport, so the server exited 0 with nothing said. Here each gets the answer
 * JSON-RPC 2.0 (section 5.1) prescribes, with `id: null` where the message's id cannot be read:
 * -32700 (parse error) for a line that is no JSON, -32600 (invalid request) for JSON that is no
 * JSON-RPC message and for a line over MAX_MESSAGE_BYTES (dropped as it arrives, never held
 * whole). The server goes on reading the next line either way.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The largest message read: the SDK's own stdio limit, 10 MiB. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

type Id = string | number | null;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** The unread part of the current line (chunks, not yet joined). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current line passed MAX_MESSAGE_BYTES: its bytes are dropped up to its newline. */
  private dropping = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
      this.take(rest.subarray(0, nl));
      this.endOfLine();
      rest = rest.subarray(nl + 1);
    }
    this.take(rest);
  };

  async start(): Promise<void> {
    this.input.on('data', this.onData);
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.pending = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private take(part: Buffer): void {
    if (this.dropping || part.length === 0) return;
    if (this.pendingBytes + part.length > MAX_MESSAGE_BYTES) {
      this.pending = [];
      this.pendingBytes = 0;
      this.dropping = true;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private endOfLine(): void {
    if (this.dropping) {
      this.dropping = false;
      this.refuse(
        null,
        ErrorCode.InvalidRequest,
        `Invalid Request: a message of more than ${MAX_MESSAGE_BYTES} bytes (10 MiB), the most this server reads; it was dropped`,
      );
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      this.refuse(null, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.refuse(
        idOf(parsed),
        ErrorCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method", or a response with an "id")',
      );
      return;
    }
    this.onmessage?.(message.data);
  }

  private refuse(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

/** The request's id when it has a usable one (JSON-RPC 2.0: a string or a number), else null. */
function idOf(value: unknown): Id {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
