/**
 * How a walk pays as it goes on an account that could not hold its worst case (docs/api-conventions.md, GraphQL).
 * Before an edge fetches it reserves its own worst case on the call's hold, beside what the call has returned so far
 * and what the edges fetching now have reserved. An edge that does not fit waits for those to land (their real cost
 * is often far below their worst case); alone, it fetches if what has come back still fits the hold. Once what has
 * come back costs more than the hold and nothing is in flight, the hold is grown as settlement would grow it, or the
 * call is refused: no edge fetches after that, and the call ends refused. So an account that can pay for the result
 * is never refused, and one that cannot stops reading the platforms one edge past what it could pay for.
 */
export interface WalkBudget {
  /** Waits until the edge may fetch; the answer releases its reservation once its result is metered. */
  reserve(worstCase: number): Promise<() => void>;
  /** The refusal that ended the walk, if one did. */
  refusal(): { error: unknown } | undefined;
}

export function walkBudget(hold: { held: () => number; soFar: () => number; grow: (extra: number) => Promise<void> }): WalkBudget {
  let reserved = 0;
  let growing = false;
  let refused: { error: unknown } | undefined;
  let waiting: (() => void)[] = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resume of woken) resume();
  };
  return {
    refusal: () => refused,
    async reserve(worstCase) {
      for (;;) {
        if (refused) throw refused.error;
        const soFar = hold.soFar();
        const held = hold.held();
        if (!growing && (soFar + reserved + worstCase <= held || (reserved === 0 && soFar <= held))) {
          reserved += worstCase;
          let released = false;
          return () => {
            if (released) return;
            released = true;
            reserved -= worstCase;
            wake();
          };
        }
        if (reserved > 0 || growing) {
          await new Promise<void>((resume) => waiting.push(resume));
          continue;
        }
        growing = true;
        try {
          await hold.grow(soFar - held);
        } catch (error) {
          refused = { error };
          throw error;
        } finally {
          growing = false;
          wake();
        }
      }
    },
  };
}
