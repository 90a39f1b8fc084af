/**
 * The approval page's only script, served from the page's own origin (`/approvals/passkey.js`,
 * allowed by `script-src 'self'`): it runs the WebAuthn ceremony a form names in its
 * `data-passkey` attribute (the options the server made, JSON with base64url buffers), puts the
 * browser's answer in the form's `credential` field and submits the form. It evaluates nothing,
 * loads nothing and reads nothing but the form; the server checks everything it sends.
 */
export const PASSKEY_SCRIPT = `'use strict';
(() => {
  const toBytes = (text) => {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '==='.slice((base64.length + 3) % 4);
    return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
  };
  const toText = (buffer) => {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const withIds = (list) => (list || []).map((each) => ({ ...each, id: toBytes(each.id) }));
  const answerOf = (credential) => {
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      response: { clientDataJSON: toText(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      json.response.transports = response.getTransports ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      if (response.userHandle) json.response.userHandle = toText(response.userHandle);
    }
    return json;
  };
  for (const form of document.querySelectorAll('form[data-passkey]')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const status = form.querySelector('.passkey-status');
      const say = (text) => { if (status) status.textContent = text; };
      try {
        const options = JSON.parse(form.dataset.passkey);
        say('Waiting for your passkey…');
        let credential;
        if (form.dataset.ceremony === 'create') {
          credential = await navigator.credentials.create({ publicKey: {
            ...options,
            challenge: toBytes(options.challenge),
            user: { ...options.user, id: toBytes(options.user.id) },
            excludeCredentials: withIds(options.excludeCredentials),
          } });
        } else {
          credential = await navigator.credentials.get({ publicKey: {
            ...options,
            challenge: toBytes(options.challenge),
            allowCredentials: withIds(options.allowCredentials),
          } });
        }
        if (!credential) throw new Error('no passkey answered');
        form.elements.namedItem('credential').value = JSON.stringify(answerOf(credential));
        say('Checking…');
        form.submit();
      } catch (error) {
        say('The passkey did not answer (' + (error && error.name ? error.name : 'error') + '): nothing was sent.');
      }
    });
  }
})();
`;
