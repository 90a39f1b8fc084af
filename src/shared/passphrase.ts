/** The shortest keystore passphrase: checked by the domain, and by the CLI's prompt before it asks to repeat. */
export const MIN_PASSPHRASE_LENGTH = 8;
