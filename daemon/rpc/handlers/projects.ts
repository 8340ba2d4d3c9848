/**
 * Handlers of project.* and templates.*: jobs as code. The engine validates the params (a
 * declaration field by field, under `file`) and plans inside the apply's transaction; an apply
 * that changed schedules wakes the scheduler, whose next tick may have moved.
 */
import { name, object } from '../../../shared/domain/validate';
import type { ApplyProjectParams, EnqueueTemplateParams, ProjectStateParams } from '../../../shared/protocol';
import { unvalidated } from '../unvalidated';
import type { HandlerGroup, Services } from './types';

type ProjectMethods = 'project.state' | 'project.apply' | 'templates.list' | 'templates.get' | 'templates.enqueue';

export function projectHandlers(s: Services): HandlerGroup<ProjectMethods> {
  const { engine } = s;
  return {
    'project.state': (params) => engine.projectState(unvalidated<ProjectStateParams>(params)),
    'project.apply': async (params) => {
      const result = await engine.applyProject(unvalidated<ApplyProjectParams>(params));
      if (result.applied) {
        s.upkeep.refresh();
        s.upkeep.ageSoon();
      }
      return result;
    },
    'templates.list': async (params) => {
      object(params, 'params', []);
      return { templates: await engine.listTemplates() };
    },
    'templates.get': async (params) => ({ template: await engine.getTemplate(name(object(params, 'params', ['name'])['name'], 'name')) }),
    'templates.enqueue': (params) => engine.enqueueTemplate(unvalidated<EnqueueTemplateParams>(params)),
  };
}
