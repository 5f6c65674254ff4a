import type { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * How much of a refused request's unread body the server reads and drops before it closes the
 * connection, and for how long (docs/deploy.md, "Oversized bodies").
 */
export interface BodyDrainLimits {
  /** body bytes read after the answer; past them the connection is closed */
  maxBytes: number;
  /** time from the answer to the body's end; past it the connection is closed */
  maxMs: number;
}

/**
 * Bodies up to 16 times the general 1 MiB limit are read to their end; a client sending more than
 * that is not one to wait for. 30 s, as nginx's `lingering_time`, bounds how long one refused
 * request can hold its connection, and leaves a slow uplink time to finish a few MiB.
 */
export const DEFAULT_BODY_DRAIN: BodyDrainLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 30_000 };

declare module "fastify" {
  interface FastifyInstance {
    /** Bounds on reading a refused request's body (platform/http/body-drain.ts). */
    bodyDrain: BodyDrain;
  }
}

interface BodyDrain {
  limits: BodyDrainLimits;
  /** connections held for a body's end; closed with the app */
  sockets: Set<Socket>;
  closed: boolean;
}

/**
 * An error answered while the request's body is still arriving (413 with a known Content-Length,
 * a body cut at its limit, a gzip bomb, a refusal before the body is read) is sent at once; the
 * connection then stays until the client's body ends, up to the limits. Closing it at once, as
 * Node does after `Connection: close`, makes the kernel reset a client still writing, and the
 * reset can throw away the answer it had not read yet: SDKs see a network error and retry the
 * same oversized batch.
 */
export function registerBodyDrain(app: FastifyInstance, limits: BodyDrainLimits): void {
  const drain: BodyDrain = { limits, sockets: new Set(), closed: false };
  app.decorate("bodyDrain", drain);
  // Runs before the server's own close, which waits for every connection: a closing server
  // holds none for a body's end.
  app.addHook("onClose", (_app, done) => {
    drain.closed = true;
    for (const s of drain.sockets) s.destroy();
    done();
  });
}

/** Called by the one error handler: keeps the connection of a request whose body is still unread. */
export function drainUnreadBody(req: FastifyRequest, reply: FastifyReply): void {
  const raw = req.raw as IncomingMessage;
  // inject() has no socket and no `complete` flag; a finished body needs nothing. (A request
  // without a body is not complete either while the router's own errors are answered.)
  if (raw.complete !== false || !(raw.socket instanceof Socket)) return;
  const hasBody =
    Number(raw.headers["content-length"] ?? 0) > 0 || raw.headers["transfer-encoding"] !== undefined;
  if (!hasBody) return;
  const drain = (req.server as Partial<FastifyInstance>).bodyDrain;
  if (!drain || drain.closed || drain.sockets.has(raw.socket)) return;
  // The connection is not reused: a client that stops sending its body on an early answer would
  // otherwise have its next request read as the rest of this body.
  reply.header("connection", "close");
  linger(raw, raw.socket, drain.limits, drain.sockets);
}

function linger(req: IncomingMessage, socket: Socket, limits: BodyDrainLimits, sockets: Set<Socket>): void {
  sockets.add(socket);
  let read = 0;
  let closeWanted = false;
  const done = () => {
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", onEnd);
    socket.off("close", done);
    sockets.delete(socket);
    // Node's own destroySoon again: onEnd closes with it once the answer is written.
    delete (socket as Partial<Socket>).destroySoon;
  };
  const cut = () => {
    done();
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.maxBytes) cut();
  };
  const onEnd = () => {
    done();
    if (closeWanted) socket.destroySoon();
  };
  const timer = setTimeout(cut, limits.maxMs);
  timer.unref();
  req.on("data", onData);
  req.once("end", onEnd);
  socket.once("close", done);
  // A refused body has no reader left: a decompressor it was piped into would stop reading it at
  // its first full buffer.
  req.unpipe();
  req.resume();
  // Node closes a `Connection: close` answer's socket with destroySoon() once the answer is
  // written. Instead the connection stays as it is until the body ends, then closes: no FIN
  // either, since some clients stop writing at one and count it a failure.
  socket.destroySoon = () => {
    closeWanted = true;
  };
}
