/**
 * The whole conformance suite, declared once: `defineAll(store)` declares every suite's tests
 * against one store. Each `<store>.test.ts` calls it with its own factory, so a suite added here
 * runs on every store (River's riverdrivertest: one suite every driver must pass).
 */
import type { TestStoreFactory } from '../harness';
import { defineAgeing } from './ageing';
import { defineBackoff } from './backoff';
import { defineBatch } from './batch';
import { defineCore } from './core';
import { defineCounters } from './counters';
import { defineDaemons } from './daemons';
import { defineDelayed } from './delayed';
import { defineDependencies } from './dependencies';
import { defineEditGroup } from './editGroup';
import { defineHistory } from './history';
import { defineGroupCounts } from './groupCounts';
import { defineGroups } from './groups';
import { defineLease } from './lease';
import { defineList } from './list';
import { defineManage } from './manage';
import { defineOperator } from './operator';
import { defineOutput } from './output';
import { definePauseRun } from './pauseRun';
import { definePayloads } from './payloads';
import { defineProjects } from './projects';
import { defineRateLimit } from './rateLimit';
import { defineRetryRules } from './retryRules';
import { defineSchedules } from './schedules';
import { defineTokens } from './tokens';
import { defineUnique } from './unique';
import { defineUpkeep } from './upkeep';
import { defineValidation } from './validation';
import { defineWeights } from './weights';
import { defineWorkflows } from './workflows';

/** Every suite, in the order they run. */
const SUITES: readonly ((store: TestStoreFactory) => void)[] = [
  defineAgeing,
  defineBackoff,
  defineBatch,
  defineCore,
  defineCounters,
  defineDaemons,
  defineDelayed,
  defineDependencies,
  defineEditGroup,
  defineHistory,
  defineGroupCounts,
  defineGroups,
  defineLease,
  defineList,
  defineManage,
  defineOperator,
  defineOutput,
  definePauseRun,
  definePayloads,
  defineProjects,
  defineRateLimit,
  defineRetryRules,
  defineSchedules,
  defineTokens,
  defineUnique,
  defineUpkeep,
  defineValidation,
  defineWeights,
  defineWorkflows,
];

/** Declares every conformance test against `store`. */
export function defineAll(store: TestStoreFactory): void {
  for (const define of SUITES) define(store);
}
