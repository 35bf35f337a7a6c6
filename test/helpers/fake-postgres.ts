import { createServer, type Server, type Socket } from 'node:net';

/**
 * A stand-in for a PostgreSQL server that records what clients send it: the parameters of each connection's startup,
 * each simple query's text, each extended-protocol statement's name and text. It answers every statement with no rows
 * ("SELECT 0"), which is enough for pg, Kysely and the runtime to go on; on 127.0.0.1 and a free port. For tests of
 * what a client keeps in a connection (a pooler in transaction mode must see none of it), without a database.
 */
export interface Sent {
  kind: 'query' | 'parse';
  /** the statement's name (extended protocol; '' for the unnamed one) */
  name: string;
  text: string;
}

export interface FakeConnection {
  startup: Record<string, string>;
  sent: Sent[];
}

export interface FakePostgres {
  url: string;
  connections: FakeConnection[];
  close(): Promise<void>;
}

const message = (type: string, body: Buffer = Buffer.alloc(0)): Buffer => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32s = (...values: number[]): Buffer => {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => out.writeInt32BE(value, 4 * i));
  return out;
};
const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');
const READY = message('Z', Buffer.from('I'));
const COMPLETE = message('C', cstring('SELECT 0'));

/** The NUL-terminated strings of `body` from `at`, `count` of them. */
function cstrings(body: Buffer, at: number, count: number): string[] {
  const out: string[] = [];
  let from = at;
  for (let i = 0; i < count; i += 1) {
    const end = body.indexOf(0, from);
    out.push(body.toString('utf8', from, end));
    from = end + 1;
  }
  return out;
}

function serve(socket: Socket, connection: FakeConnection): void {
  let buffer = Buffer.alloc(0);
  let started = false;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        const body = buffer.subarray(8, length);
        buffer = buffer.subarray(length);
        // an SSLRequest: no
        if (code === 80877103) {
          socket.write('N');
          continue;
        }
        const fields = body.toString('utf8').split('\0');
        for (let i = 0; i + 1 < fields.length && fields[i] !== ''; i += 2)
          connection.startup[fields[i] ?? ''] = fields[i + 1] ?? '';
        started = true;
        socket.write(Buffer.concat([message('R', int32s(0)), message('K', int32s(4242, 1)), READY]));
        continue;
      }
      if (buffer.length < 5) return;
      const type = String.fromCharCode(buffer[0] ?? 0);
      const length = buffer.readInt32BE(1);
      if (buffer.length < length + 1) return;
      const body = buffer.subarray(5, length + 1);
      buffer = buffer.subarray(length + 1);
      if (type === 'Q') {
        const [text = ''] = cstrings(body, 0, 1);
        connection.sent.push({ kind: 'query', name: '', text });
        socket.write(Buffer.concat([COMPLETE, READY]));
      } else if (type === 'P') {
        const [name = '', text = ''] = cstrings(body, 0, 2);
        connection.sent.push({ kind: 'parse', name, text });
        socket.write(message('1'));
      } else if (type === 'B') socket.write(message('2'));
      else if (type === 'D') socket.write(message('n'));
      else if (type === 'E') socket.write(COMPLETE);
      else if (type === 'S') socket.write(READY);
      else if (type === 'C') socket.write(message('3'));
      else if (type === 'X') socket.end();
    }
  });
  socket.on('error', () => undefined);
}

export async function startFakePostgres(): Promise<FakePostgres> {
  const connections: FakeConnection[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const connection: FakeConnection = { startup: {}, sent: [] };
    connections.push(connection);
    serve(socket, connection);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `postgres://fake@127.0.0.1:${port}/fake`,
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}

/** A statement run (but those that open, set and end transactions), and the settings its transaction made (none: not in one). */
export interface Run {
  connection: number;
  text: string;
  settings: Record<string, string> | undefined;
}

/**
 * What each connection's client left behind it for the next transaction, which a transaction-mode pooler may give
 * another client's backend (`problems`): startup settings, named statements, session-level SET / RESET / DISCARD,
 * LISTEN, cursors, temporary tables, session advisory locks, session-wide set_config, and SQL-level prepared
 * statements still there when their transaction ends. And every other statement run (`runs`), with the SET LOCALs of
 * its transaction (undefined: outside one).
 */
export function sessionState(connections: readonly FakeConnection[]): { problems: string[]; runs: Run[] } {
  const problems: string[] = [];
  const runs: Run[] = [];
  const startupAllowed = new Set(['user', 'database', 'client_encoding', 'application_name']);
  const SESSION_STATEMENT = /^(SET(?!\s+LOCAL\b)|RESET|DISCARD|LISTEN|UNLISTEN|DECLARE|CREATE\s+(TEMP|TEMPORARY)\b)/i;
  // what opens, ends and sets a transaction, and the cost check's PREPARE and DEALLOCATE: not runs of a statement
  const CONTROL = /^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SET|SAVEPOINT|RELEASE|PREPARE|DEALLOCATE)\b|^$/i;
  const SESSION_CALL = /pg_advisory_lock|pg_try_advisory_lock|pg_advisory_unlock|set_config\([^)]*,\s*false\s*\)/i;
  connections.forEach((connection, c) => {
    for (const key of Object.keys(connection.startup))
      if (!startupAllowed.has(key)) problems.push(`connection ${c}: startup parameter ${key}`);
    let settings: Record<string, string> | undefined;
    const prepared = new Set<string>();
    for (const sent of connection.sent) {
      if (sent.kind === 'parse' && sent.name !== '') problems.push(`connection ${c}: named statement ${sent.name}`);
      if (SESSION_CALL.test(sent.text)) problems.push(`connection ${c}: ${sent.text.trim().slice(0, 80)}`);
      for (const raw of sent.kind === 'query' ? sent.text.split(';') : [sent.text]) {
        const statement = raw.trim();
        if (!CONTROL.test(statement))
          runs.push({ connection: c, text: statement, settings: settings && { ...settings } });
        if (SESSION_STATEMENT.test(statement)) problems.push(`connection ${c}: ${statement.slice(0, 80)}`);
        if (/^(BEGIN|START TRANSACTION)\b/i.test(statement)) settings = {};
        const local = /^SET\s+LOCAL\s+(\w+)\s*(?:=|TO)\s*(.+)$/i.exec(statement);
        if (local !== null && settings !== undefined) settings[local[1] ?? ''] = local[2] ?? '';
        if (/^(COMMIT|ROLLBACK)$/i.test(statement)) {
          for (const name of prepared) problems.push(`connection ${c}: ${name} still prepared after its transaction`);
          prepared.clear();
          settings = undefined;
        }
        const prepare = /^PREPARE\s+(\w+)/i.exec(statement);
        if (prepare !== null) {
          if (settings === undefined) problems.push(`connection ${c}: PREPARE ${prepare[1]} outside a transaction`);
          prepared.add(prepare[1] ?? '');
        }
        const deallocate = /^DEALLOCATE\s+(\w+)/i.exec(statement);
        if (deallocate !== null) prepared.delete(deallocate[1] ?? '');
      }
    }
    for (const name of prepared) problems.push(`connection ${c}: ${name} still prepared at its end`);
  });
  return { problems, runs };
}
