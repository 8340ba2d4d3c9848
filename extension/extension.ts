// Placeholder entry for the VS Code extension; the extension issue replaces it.
export function activate(): void {}
export function deactivate(): void {}
