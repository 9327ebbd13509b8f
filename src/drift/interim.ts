/**
 * Interim `100 Continue` answers from the upstream, dropped before undici reads them. RFC 9110
 * §15.2 has a client parse any 1xx before the final answer, even one it did not ask for;
 * undici's HTTP/1.1 parser destroys the connection on a 100 it did not ask for (record never
 * sends `Expect`), which would reset the client of an answer the service did give. So each
 * upstream socket's reads are filtered: where an answer starts (after a request is written), a
 * `HTTP/1.x 100` head is taken out, and everything else passes as it came.
 */
import type { Socket } from 'node:net';

const INTERIM = /^HTTP\/1\.[01] 100[ \r]/;
/** How a 100 head starts, for a read too short to tell. */
const PREFIXES = ['HTTP/1.1 100 ', 'HTTP/1.0 100 '];
const PREFIX_LENGTH = 13;

/** Wraps a socket's read and write so that 100 heads at an answer's start never reach its reader. */
export function dropInterim100(socket: Socket): Socket {
  const read = socket.read.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  /** Whether the next byte read starts an answer (a request was written since the last one). */
  let atStart = false;
  /** Bytes read at an answer's start that may yet be a 100 head. */
  let pending: Buffer | undefined;
  socket.write = ((...args: unknown[]) => {
    atStart = true;
    return write(...args);
  }) as Socket['write'];
  socket.read = ((size?: number) => {
    if (!atStart && !pending) return read(size);
    for (;;) {
      const chunk = read() as Buffer | null;
      if (chunk === null && !pending) return null;
      let buf = pending && chunk ? Buffer.concat([pending, chunk]) : (chunk ?? pending!);
      pending = undefined;
      const head = buf.toString('latin1', 0, Math.min(buf.length, PREFIX_LENGTH));
      if (buf.length < PREFIX_LENGTH && PREFIXES.some((p) => p.startsWith(head))) {
        pending = buf; // too short to tell: wait for more
        if (chunk === null) return null;
        continue;
      }
      if (!INTERIM.test(head)) {
        atStart = false;
        return buf;
      }
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) {
        pending = buf; // the 100 head is not whole yet
        if (chunk === null) return null;
        continue;
      }
      buf = buf.subarray(end + 4);
      if (buf.length) pending = buf;
    }
  }) as Socket['read'];
  return socket;
}
