// Placeholder entry for the `spool` CLI; the CLI issue replaces it.
console.error('spool: not built yet');
process.exit(1);
