-- The hosts a connection's credentials may reach (DESIGN.md section 10, layer 2), fixed when the
-- credentials are set: from the definition's defaults and OAuth endpoints and the connection's and
-- its feeds' config at that moment. A later config change that points elsewhere does not move
-- them: runs fail until the credentials are set again. NULL: not computed yet (credentials set
-- before this column existed); the first run computes it from the config of that moment.
ALTER TABLE connections ADD COLUMN granted_hosts text[];
