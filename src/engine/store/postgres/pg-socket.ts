import net from "node:net";

/** What the driver hands a socket factory: its parsed options (only these are read). */
interface SocketTarget {
  host: readonly string[];
  port: readonly number[];
  path?: string;
}

/**
 * The driver's sockets with Nagle's algorithm off (TCP_NODELAY), as libpq, pgjdbc, npgsql
 * and PgBouncer set theirs; postgres.js leaves it on. With it on, a message written right
 * after another one that is not yet acknowledged waits for the server's delayed ACK (40 ms
 * on Linux): every `COPY … FROM STDIN` ends that way (its data, then CopyDone), and so
 * does a pipeline of statements longer than the driver's write buffer. Measured here: a
 * COPY of one row took 88 ms, with TCP_NODELAY 0.7 ms.
 *
 * The factory does what the driver does without one: a Unix socket when a path is given,
 * otherwise the next host of the list, in turn, so a connection that fails or finds the
 * wrong kind of server (target_session_attrs) tries the next one. The socket is returned
 * still connecting: the driver's first writes wait in it until the connection is made.
 */
export function noDelaySockets(): (target: SocketTarget) => net.Socket {
  let next = 0;
  return (target) => {
    if (target.path) return net.connect(target.path);
    const i = next++ % target.port.length;
    const socket = new net.Socket();
    socket.setNoDelay(true);
    socket.connect(target.port[i], target.host[i]);
    // The driver names these in its connection errors.
    return Object.assign(socket, { host: target.host[i], port: target.port[i] });
  };
}
