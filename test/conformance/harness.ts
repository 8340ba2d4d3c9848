/**
 * What the conformance suite runs against: a store, given as a factory. Every store Spool has
 * (SQLite now, PostgreSQL next) runs the same suite through its own factory, as River's drivers
 * all pass riverdrivertest. A suite file exports `defineX(store)`, which declares its tests; a
 * `<store>.test.ts` file calls each of them with its factory.
 */
import type { TestContext } from 'node:test';
import { Engine } from '../../daemon/engine';
import type { StoreFactory } from '../../daemon/storage/store';
import { FakeClock } from '../helpers/engineTest';

export { thrown } from '../helpers/engineTest';

/** One store for one test: fresh and empty, removed when the test ends. */
export interface TestStore {
  /** Opens the store for the test's engine. */
  store: StoreFactory;
  /** Opens the same store again: another daemon sharing it (another process on the file, another server on the database). */
  shared(): StoreFactory;
}

/** Makes a fresh store for a test, and registers its removal with `t`. */
export type TestStoreFactory = (t: TestContext) => TestStore;

export interface TestEngine {
  engine: Engine;
  clock: FakeClock;
  /** Sets what the injected random() returns next (default 0.5 = no jitter). */
  setRandom(value: number): void;
  /** Another engine on the same store, with the same clock (and `random`, if given): a second daemon. */
  openShared(options?: { random?: () => number }): Engine;
}

/** A real engine over a fresh store, with a clock and randomness the test controls; closed when the test ends. */
export function makeEngine(t: TestContext, store: TestStoreFactory, options: { random?: () => number } = {}): TestEngine {
  const clock = new FakeClock();
  let random = 0.5;
  const opened = store(t);
  const engine = new Engine({ store: opened.store, now: clock.now, random: options.random ?? (() => random) });
  t.after(() => engine.close());
  return {
    engine,
    clock,
    setRandom: (value: number) => {
      random = value;
    },
    openShared: (shared = {}) => {
      const other = new Engine({ store: opened.shared(), now: clock.now, ...(shared.random === undefined ? {} : { random: shared.random }) });
      t.after(() => other.close());
      return other;
    },
  };
}

