/** Time source for every rule; tests swap in a FixedClock to move time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class FixedClock implements Clock {
  constructor(private t: Date = new Date()) {}
  now() {
    return new Date(this.t.getTime());
  }
  set(t: Date) {
    this.t = new Date(t.getTime());
  }
  advance(ms: number) {
    this.t = new Date(this.t.getTime() + ms);
  }
}
