/**
 * Statements over what jobs as code adds (see ./index.ts for the protocol): templates, and the
 * ownership records of the objects a project's apply manages. A schedule's template, parameters
 * and overlap policy are columns of schedules (./schedules.ts); an object's owner is joined into
 * its row where it is read.
 */

/** The kinds of object a project's jobs file declares. */
export type ManagedType = 'queue' | 'template' | 'workflow' | 'schedule';

/** That a project's apply made (or adopted) an object, and what it last declared. */
export interface Ownership {
  type: ManagedType;
  name: string;
  project: string;
  /** canonicalJson (shared/jobsfile) of the declared value; the engine reads it back. */
  applied: string;
  appliedAt: number;
}

/**
 * A template as a store holds it: the declaration without its name, as canonical JSON text the
 * engine reads back with its own validation (the store keeps no policy about templates).
 */
export interface StoredTemplate {
  name: string;
  queue: string;
  kind: string;
  body: string;
  createdAt: number;
  updatedAt: number;
}

export type TemplateWrite = {
  name: string;
  queue: string;
  kind: string;
  /** Canonical JSON of the declaration without its name. */
  body: string;
  now: number;
};

export type OwnerWrite = {
  type: ManagedType;
  name: string;
  project: string;
  /** Canonical JSON of what the project last declared. */
  applied: string;
  now: number;
};

export interface ProjectSql {
  /**
   * Serializes applies: taken before an apply reads anything, held until its transaction ends,
   * so that a second apply plans against what the first committed.
   */
  projectLockApply(): void;
  /** Every template, by name. */
  templateList(): StoredTemplate[];
  /** One template, or undefined. */
  templateGet(name: string): StoredTemplate | undefined;
  /** Creates or rewrites a template. */
  templatePut(p: TemplateWrite): void;
  /** Deletes a template and its ownership record; false if there was none. */
  templateDelete(name: string): boolean;
  /** Every ownership record, by type and name. */
  ownerList(): Ownership[];
  /** Records `project` as the owner of an object and `applied` as what it declared. */
  ownerPut(p: OwnerWrite): void;
}
