import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST_CODE = 80_877_103;
/** Messages after which the backend answers ReadyForQuery: a request is complete. */
const REQUEST_ENDS = new Set(['S', 'Q']);
const TERMINATE = 'X';

/**
 * Hands PGlite's single session to one connection at a time. A connection keeps it from its first
 * message to the end of its request (Sync or simple Query), and on to the end of any transaction
 * it opened, so no other connection's statements interleave with its own.
 */
class SessionLock {
  #owner: number | undefined;
  #waiting: Array<() => void> = [];

  async acquire(connection: number): Promise<void> {
    while (this.#owner !== undefined && this.#owner !== connection) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#owner = connection;
  }

  owns(connection: number): boolean {
    return this.#owner === connection;
  }

  release(connection: number): void {
    if (this.#owner !== connection) return;
    this.#owner = undefined;
    for (const wake of this.#waiting.splice(0)) wake();
  }
}

/** Splits a connection's byte stream into complete requests (lists of protocol messages). */
class RequestReader {
  #buffer = Buffer.alloc(0);
  #started = false;
  #pending: Buffer[] = [];

  /** Feeds bytes; returns the requests they complete and whether an SSL request must be refused. */
  push(chunk: Buffer): { requests: Buffer[][]; refuseSsl: boolean; terminate: boolean } {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const requests: Buffer[][] = [];
    let refuseSsl = false;
    let terminate = false;
    for (;;) {
      if (!this.#started) {
        if (this.#buffer.length < 8) break;
        const length = this.#buffer.readInt32BE(0);
        if (this.#buffer.length < length) break;
        const message = this.#take(length);
        if (message.readInt32BE(4) === SSL_REQUEST_CODE) refuseSsl = true;
        else {
          this.#started = true;
          requests.push([message]);
        }
        continue;
      }
      if (this.#buffer.length < 5) break;
      const total = 1 + this.#buffer.readInt32BE(1);
      if (this.#buffer.length < total) break;
      const message = this.#take(total);
      const type = String.fromCharCode(message[0] ?? 0);
      if (type === TERMINATE) {
        terminate = true;
        break;
      }
      this.#pending.push(message);
      if (REQUEST_ENDS.has(type)) requests.push(this.#pending.splice(0));
    }
    return { requests, refuseSsl, terminate };
  }

  #take(length: number): Buffer {
    const message = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    return message;
  }
}

export interface PgliteWireServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves one PGlite database over the PostgreSQL wire protocol on 127.0.0.1, to any number of
 * connections, with each connection's requests and transactions kept whole.
 */
export async function servePglite(db: PGlite): Promise<PgliteWireServer> {
  const lock = new SessionLock();
  const sockets = new Set<Socket>();
  let nextConnection = 1;

  const server: Server = createServer((socket) => {
    const connection = nextConnection++;
    const reader = new RequestReader();
    let queue = Promise.resolve();
    sockets.add(socket);
    socket.setNoDelay(true);

    const run = async (request: Buffer[]) => {
      await lock.acquire(connection);
      for (const message of request) {
        const reply = await db.runExclusive(() => db.execProtocolRaw(new Uint8Array(message)));
        if (reply.length > 0 && !socket.destroyed) socket.write(reply);
      }
      if (!db.isInTransaction()) lock.release(connection);
    };
    const abandon = async () => {
      if (!lock.owns(connection)) return;
      if (db.isInTransaction()) await db.exec('ROLLBACK');
      lock.release(connection);
    };

    socket.on('data', (chunk: Buffer) => {
      const { requests, refuseSsl, terminate } = reader.push(chunk);
      if (refuseSsl) socket.write('N');
      for (const request of requests) queue = queue.then(() => run(request));
      if (terminate) queue = queue.then(() => void socket.end());
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      queue = queue.then(abandon, abandon);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the embedded database server has no port');
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
