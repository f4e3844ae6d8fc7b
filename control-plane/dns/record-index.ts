// ServiceDNSRecords by the Domain they name, so that a Domain's change costs the records that
// name it and not every record. Pure: fed the record informer's events.

export class DomainRefIndex {
  private readonly byDomain = new Map<string, Set<string>>();
  private readonly domainOf = new Map<string, string>();

  /** A record (by key) names this Domain now. */
  set(key: string, domainRef: string): void {
    if (this.domainOf.get(key) === domainRef) return;
    this.delete(key);
    this.domainOf.set(key, domainRef);
    const keys = this.byDomain.get(domainRef);
    if (keys === undefined) this.byDomain.set(domainRef, new Set([key]));
    else keys.add(key);
  }

  /** A record is gone. */
  delete(key: string): void {
    const domain = this.domainOf.get(key);
    if (domain === undefined) return;
    this.domainOf.delete(key);
    const keys = this.byDomain.get(domain);
    keys?.delete(key);
    if (keys?.size === 0) this.byDomain.delete(domain);
  }

  /** Keys of the records that name the Domain. */
  naming(domain: string): string[] {
    return [...(this.byDomain.get(domain) ?? [])];
  }
}
