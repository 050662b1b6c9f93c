/** The contract form bundle (dist/webview/contract-form.js), shown by the custom editor of *.loadcontract.* files. */
import { boot } from './shared/boot';
import { ContractFormApp } from './contract-form/app';
import css from './contract-form/form.css';

boot('contract-form', css, (root, bridge) => {
  const app = new ContractFormApp(root, bridge);
  (window as { phasewiseContractForm?: ContractFormApp }).phasewiseContractForm = app;
  return app;
});
