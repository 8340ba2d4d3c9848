// Placeholder entry for spoold; the daemon issue replaces it.
console.error('spoold: not built yet');
process.exit(1);
