/**
 * A send queue for one stream that holds keys, not messages: marking a key that is already
 * pending does nothing, and the message for a key is built from the newest state only when the
 * stream has room. Memory is one entry per distinct key however slow the peer; back-pressure
 * (write() returning false) pauses sending until drained() is called.
 */
export class CoalescingOutbox {
  private readonly pending = new Set<string>();
  private writable = true;
  private closed = false;
  private readonly send: (key: string) => boolean;

  /** send(key) builds and writes the key's message; it returns write()'s answer. */
  constructor(send: (key: string) => boolean) {
    this.send = send;
  }

  /** Marks a key as needing a message; sends at once if the stream has room. */
  mark(key: string): void {
    if (this.closed) return;
    this.pending.add(key);
    this.flush();
  }

  /** The stream emitted 'drain': resume sending. */
  drained(): void {
    this.writable = true;
    this.flush();
  }

  /** Keys waiting for room on the stream. */
  get size(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    this.pending.clear();
  }

  private flush(): void {
    while (this.writable && !this.closed) {
      const next = this.pending.values().next();
      if (next.done) return;
      this.pending.delete(next.value);
      this.writable = this.send(next.value);
    }
  }
}
