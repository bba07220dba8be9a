"""Play by email: the three inbound doors, what a mail may do through which key, the answers, and delivery.

`inbound` is the one door (listener, imap and `pbem mail ingest` call it); `turns` acts on
a mail through a turn key, `account` on one through a command or request key or none;
`answers` writes what they say back; `outbound` and `compose` send the outbox. The keys
themselves are made and read in pbem.mailkeys, and docs/security.md says what each may do.
Nothing outside this package speaks SMTP or IMAP.
"""
