/**
 * Closing a server gracefully (server.ts): no new connections; sockets without a request in
 * flight (idle keep-alive ones, and stalled ones that sent part of a request line or
 * headers) are closed at once; a request whose body stopped arriving is stalled too;
 * requests in flight get up to DRAIN_MS to finish; then every socket left is closed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long requests in flight may take to finish once closing starts. */
export const DRAIN_MS = 5_000;
/** A request whose body has not advanced for this long while closing is a stalled upload. */
const STALL_MS = 500;
const TICK_MS = 25;

export interface SocketState {
  /** Requests on this socket whose response has not finished. */
  active: number;
  request: IncomingMessage | undefined;
  bytesRead: number;
  progressAt: number;
}

export function trackSockets(server: Server): Map<Socket, SocketState> {
  const sockets = new Map<Socket, SocketState>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { active: 0, request: undefined, bytesRead: 0, progressAt: performance.now() });
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = sockets.get(req.socket as Socket);
    if (!state) return;
    state.active++;
    state.request = req;
    res.once('close', () => {
      state.active--;
      if (state.request === req) state.request = undefined;
    });
  });
  return sockets;
}

export function drain(server: Server, sockets: Map<Socket, SocketState>): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = performance.now() + DRAIN_MS;
    const tick = () => {
      const now = performance.now();
      for (const [socket, state] of sockets) {
        if (now >= deadline || state.active === 0) {
          socket.destroy();
          continue;
        }
        if (socket.bytesRead !== state.bytesRead) {
          state.bytesRead = socket.bytesRead;
          state.progressAt = now;
        } else if (state.request && !state.request.complete && now - state.progressAt >= STALL_MS) {
          socket.destroy();
        }
      }
    };
    for (const state of sockets.values()) state.progressAt = performance.now();
    const timer = setInterval(tick, TICK_MS);
    server.close(() => {
      clearInterval(timer);
      // Handlers of a request whose socket was closed settle on the next turns; then the store closes.
      setImmediate(resolve);
    });
    tick();
  });
}
