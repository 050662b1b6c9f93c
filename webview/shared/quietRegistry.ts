/**
 * An exported report page runs both bundles, and each registers the same @vscode-elements controls
 * (the second registration is skipped by the library, which warns): same version, so the warning is
 * noise. Imported before the controls.
 */
(window as { __vscodeElements_disableRegistryWarning__?: boolean }).__vscodeElements_disableRegistryWarning__ = true;
export {};
