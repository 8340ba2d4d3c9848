// The rules now live in shared/domain/rules/declaration.ts; this file keeps the daemon's old import path working.
export * from '../../../shared/domain/rules/declaration';
