import { PassThrough } from 'node:stream';
import type { Database, Prepared } from '../db/database.js';
import { HttpProblem } from '../http/problem.js';
import { served, type EventFeed, type Visibility } from './feed.js';
import type { EventLog } from './log.js';
import { settledOf, type Settled } from './settled.js';

/** A comment is sent to every stream at least this often, so that proxies and clients know it is alive. */
export const HEARTBEAT_MS = 15_000;
/** How often an instance looks for events committed through other instances (one query, whatever the streams). */
export const POLL_MS = 1_000;
/** A client that leaves this much unread is dropped (it resumes with Last-Event-ID): memory stays bounded. */
export const BUFFER_LIMIT = 1024 * 1024;
/**
 * A client that takes none of what it was sent for this long is dropped (it resumes with Last-Event-ID). A stream
 * sends no more while its client has not taken what it was sent (backpressure): a fast one reads a catch-up of any
 * size, a stalled one holds one event and the buffers of its connection at most, then goes.
 */
export const STALL_MS = 15_000;
/** How long a client dropped for reading too slowly has to read what is left before its connection is closed. */
const SLOW_CLIENT_GRACE_MS = 10_000;
/** Events read for one stream at a time. */
const BATCH = 100;
/** A timer waits 2^31-1 ms at most: Node runs one set for longer at once (a token valid for 25 days ended its stream). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** The last words of a stream whose server is closing: when to reconnect (1 to 5 s), and why. */
const closingHint = (): string =>
  `retry: ${1000 + Math.floor(Math.random() * 4000)}\n: the server is shutting down: reconnect with Last-Event-ID\n\n`;

/** Runs `run` at `time` (ms since the epoch), however far ahead, in steps a timer can wait; never keeps Node alive. */
export function runAt(time: number, run: () => void): { cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = time - Date.now();
    timer = left > MAX_DELAY_MS ? setTimeout(arm, MAX_DELAY_MS) : setTimeout(run, Math.max(0, left));
    timer.unref();
  };
  arm();
  return { cancel: () => clearTimeout(timer) };
}

/** Who a stream is for, and how it ends. */
export interface StreamOptions {
  /** the client it counts against (a subject, else an IP address) */
  client: string;
  /** closes the client's connection, once the stream has ended */
  hangUp: () => void;
  /** when the stream ends by itself (its token expires), in ms since the epoch */
  until?: number | undefined;
}

interface Subscriber {
  body: PassThrough;
  /** leaves the hub, and closes the connection soon (`graceMs`: once the client had time to read what is left) */
  close: (graceMs?: number) => void;
  visibility: Visibility;
  after: number;
  /** reading now; `again`: more came meanwhile */
  busy: boolean;
  again: boolean;
}

/**
 * The live streams of this instance (`GET /events/stream`): each follows the feed from its own `seq`. They wake when
 * this instance commits an event, and when one poll of the instance (a `max(seq)`, once a second while any stream is
 * open) finds events committed through another: idle streams cost one timer between them all. Each stream reads its
 * events with the feed's own query, so it sees what the feed would show, in order, with no gap and no duplicate (on
 * PostgreSQL, through the settled bound: see settled.ts).
 */
export class StreamHub {
  readonly #subscribers = new Set<Subscriber>();
  readonly #perClient = new Map<string, number>();
  readonly #latest: Prepared<Record<string, never>>;
  readonly #settled: Settled;
  #seen = -1;
  #timers: NodeJS.Timeout[] = [];
  #closed = false;
  readonly #unsubscribe: () => void;

  constructor(
    db: Database,
    private readonly feed: EventFeed,
    log: EventLog,
    private readonly maxStreams: number,
    /** how long a client may take nothing of what it was sent (STALL_MS) */
    private readonly stallMs = STALL_MS,
  ) {
    this.#latest = db.prepare(`SELECT max("seq") AS "seq" FROM "restsmith_events"`);
    this.#settled = settledOf(db);
    this.#unsubscribe = log.onCommit(() => this.#wakeAll());
  }

  get size(): number {
    return this.#subscribers.size;
  }

  get full(): boolean {
    return this.#subscribers.size >= this.maxStreams;
  }

  /** The streams open for one client. */
  count(client: string): number {
    return this.#perClient.get(client) ?? 0;
  }

  /** A stream of the events after `after` the caller may see; it ends when the client goes or reads too slowly. */
  open(visibility: Visibility, after: number, { client, hangUp, until }: StreamOptions): PassThrough {
    const body = new PassThrough();
    if (this.#closed) {
      body.end(closingHint());
      return body;
    }
    const subscriber: Subscriber = {
      body,
      close: () => undefined,
      visibility,
      after,
      busy: false,
      again: false,
    };
    this.#subscribers.add(subscriber);
    this.#perClient.set(client, this.count(client) + 1);
    if (this.#timers.length === 0) this.#start();
    const expiry =
      until === undefined
        ? undefined
        : runAt(until, () => {
            body.end(': the token expired: reconnect with a new one\n\n');
            // a client that reads no more never takes the end: its slot and its connection go all the same
            close(SLOW_CLIENT_GRACE_MS);
          });
    let closed = false;
    const close = (graceMs = 100): void => {
      if (closed) return;
      closed = true;
      expiry?.cancel();
      this.#subscribers.delete(subscriber);
      const left = this.count(client) - 1;
      if (left > 0) this.#perClient.set(client, left);
      else this.#perClient.delete(client);
      if (this.#subscribers.size === 0) this.#stop();
      // the connection ends with its stream, whoever ended it: a client that reads no more would otherwise keep it
      // (and a closing server waiting for it) until a timeout
      setTimeout(hangUp, graceMs).unref();
    };
    subscriber.close = close;
    body.on('close', () => close());
    body.on('error', () => close());
    body.write(`retry: 2000\n: streaming events after ${after}\n\n`);
    this.#wake(subscriber);
    return body;
  }

  /**
   * Ends every stream (the server is closing), each with a `retry:` of 1 to 5 s (spread, so that its clients do not
   * all come back at once): clients reconnect, through the load balancer to another instance, with their
   * Last-Event-ID. A stream opened after it ends at once the same way.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const subscriber of this.#subscribers) subscriber.body.end(closingHint());
    this.#subscribers.clear();
    this.#stop();
    this.#unsubscribe();
  }

  #start(): void {
    this.#timers = [
      setInterval(() => {
        for (const subscriber of this.#subscribers) this.#send(subscriber, ': heartbeat\n\n');
      }, HEARTBEAT_MS),
      setInterval(() => void this.#poll(), POLL_MS),
    ];
    for (const timer of this.#timers) timer.unref();
  }

  #stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  async #poll(): Promise<void> {
    try {
      const latest = Number((await this.#latest.get({}))?.seq ?? 0);
      // and again while the newest is past the settled bound: a barrier that gave up on a write held open left the
      // streams short of events already there, which no newer seq may come to announce
      if (latest !== this.#seen || this.#settled.known < latest) {
        this.#seen = latest;
        this.#wakeAll();
      }
    } catch {
      // the database is unavailable: the next poll tries again, and the streams keep their place
    }
  }

  #wakeAll(): void {
    for (const subscriber of this.#subscribers) this.#wake(subscriber);
  }

  #wake(subscriber: Subscriber): void {
    if (subscriber.busy) {
      subscriber.again = true;
      return;
    }
    subscriber.busy = true;
    void this.#drain(subscriber).finally(() => {
      subscriber.busy = false;
      if (subscriber.again) {
        subscriber.again = false;
        this.#wake(subscriber);
      }
    });
  }

  /** Sends the stream every event after its place, in batches, until none is left. */
  async #drain(subscriber: Subscriber): Promise<void> {
    const { body } = subscriber;
    try {
      for (;;) {
        if (body.destroyed || body.writableEnded) return;
        const page = await this.feed.page(subscriber.visibility, subscriber.after, BATCH);
        for (const event of page.events) {
          const type = /^\{"type":"([^"]*)"/.exec(event.text)?.[1] ?? 'event';
          const text = `id: ${event.seq}\nevent: ${type}\ndata: ${served(event)}\n\n`;
          // the next only once the client has taken enough of this one (backpressure)
          if (!(await this.#deliver(subscriber, text))) return;
          subscriber.after = event.seq;
        }
        if (page.nextCursor === null) return;
        subscriber.after = Number(page.nextCursor);
      }
    } catch (error) {
      // the retention removed events this stream had not sent yet (a 410), or the database failed: the client is
      // told, and reconnects from its Last-Event-ID (and gets the 410 itself, as a problem document)
      const detail =
        error instanceof HttpProblem
          ? error.detail
          : 'the database is unavailable: reconnect with Last-Event-ID';
      this.#send(subscriber, `event: error\ndata: ${JSON.stringify({ detail })}\n\n`);
      body.end();
    }
  }

  /**
   * Writes to a stream; false when it has ended, or is ended now: its client left more than BUFFER_LIMIT unread (a
   * write made whatever the backpressure, as a heartbeat, is small: this bounds what a stalled stream holds).
   */
  #send(subscriber: Subscriber, text: string): boolean {
    const { body } = subscriber;
    if (body.destroyed || body.writableEnded) return false;
    if (body.writableLength + body.readableLength > BUFFER_LIMIT) {
      this.#drop(subscriber);
      return false;
    }
    body.write(text);
    return true;
  }

  /**
   * Writes to a stream, then waits until its client has taken enough of it (`drain`); false when the stream ended
   * meanwhile, or its client took nothing for stallMs: it is dropped then.
   */
  async #deliver(subscriber: Subscriber, text: string): Promise<boolean> {
    const { body } = subscriber;
    if (!this.#send(subscriber, text)) return false;
    if (!body.writableNeedDrain) return true;
    const drained = await new Promise<boolean>((settle) => {
      const done = (value: boolean): void => {
        clearTimeout(timer);
        body.off('drain', taken).off('close', gone).off('finish', gone);
        settle(value);
      };
      const taken = (): void => done(true);
      const gone = (): void => done(false);
      const timer = setTimeout(gone, this.stallMs);
      timer.unref();
      body.once('drain', taken).once('close', gone).once('finish', gone);
    });
    if (!drained) this.#drop(subscriber);
    return drained;
  }

  /** Ends a stream whose client reads too slowly, with a word why; it leaves the hub now. */
  #drop(subscriber: Subscriber): void {
    const { body } = subscriber;
    if (body.destroyed || body.writableEnded) return;
    body.end(': this client reads too slowly: reconnect with Last-Event-ID\n\n');
    // its connection goes in 10 s, read or not, and the memory it holds with it
    subscriber.close(SLOW_CLIENT_GRACE_MS);
  }
}
