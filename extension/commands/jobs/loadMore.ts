/** Load more…: the next page of a state group (the item at the end of a group), or More groups…: a grouped queue's next group keys. */
import { isLoadMoreNode, isMoreKeyGroupsNode } from '../../views/queues/nodes';
import { command } from '../command';

export const loadMore = command('spool.jobs.loadMore', async (ctx, arg) => {
  if (isMoreKeyGroupsNode(arg)) return ctx.queues.loadMoreKeyGroups(arg);
  if (!isLoadMoreNode(arg)) throw new Error('Load more is run from the "Load more…" item of a state group.');
  await ctx.queues.loadMore(arg);
});
