import { UriTemplate } from '@modelcontextprotocol/client';

/** The URI `template` (RFC 6570) names with `values` filled in: the SDK's expansion, as servers match it. */
export function expandUriTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return new UriTemplate(template).expand({ ...values });
}
