"""Who may do what and what leaves the system safely: users and roles (`auth`), the caller's
scope (`access`), knowledge bases, groups and grants (`acl`), sessions, the sign-in limit,
the upload gate, private files, and the guards of output (`safe_markdown`, `display`)."""
