// First in, first out within a priority, highest priority first: a work queue's waiting keys when
// some keys matter more (Karmada's scheduling queue by schedulePriority). With one priority it is a
// plain FIFO at the same cost.

interface Lane {
  keys: string[];
  head: number;
}

/** The default priority, whose lane always stays. */
const DEFAULT = 0;

export class PriorityLanes {
  private readonly lanes = new Map<number, Lane>([[DEFAULT, { keys: [], head: 0 }]]);
  /** Priorities with a lane, highest first. */
  private order: number[] = [DEFAULT];
  private size = 0;

  push(key: string, priority = DEFAULT): void {
    let lane = this.lanes.get(priority);
    if (lane === undefined) {
      lane = { keys: [], head: 0 };
      this.lanes.set(priority, lane);
      this.order = [...this.lanes.keys()].sort((a, b) => b - a);
    }
    lane.keys.push(key);
    this.size++;
  }

  /** The oldest key of the highest priority, or undefined when empty. */
  shift(): string | undefined {
    for (const priority of this.order) {
      const lane = this.lanes.get(priority) as Lane;
      if (lane.head >= lane.keys.length) continue;
      const key = lane.keys[lane.head++] as string;
      this.size--;
      if (lane.head === lane.keys.length) {
        lane.keys = [];
        lane.head = 0;
        // A priority no key waits at is forgotten, so the lanes stay as few as the priorities in use.
        if (priority !== DEFAULT) {
          this.lanes.delete(priority);
          this.order = this.order.filter((p) => p !== priority);
        }
      } else if (lane.head > 1024 && lane.head * 2 > lane.keys.length) {
        lane.keys.splice(0, lane.head);
        lane.head = 0;
      }
      return key;
    }
    return undefined;
  }

  get length(): number {
    return this.size;
  }
}
