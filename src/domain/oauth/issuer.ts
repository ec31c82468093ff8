/** The access tokens' issuer, and the authorization server's address: {auth_url} (docs/design/processes.md#addresses). */
export function issuerOf(publicUrl: string): string {
  return `${publicUrl}/auth`;
}
