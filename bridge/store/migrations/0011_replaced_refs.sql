-- An edit under quorum replaces the arguments an approval's prompt and its reminders showed.
-- `shown` is the payload hash such a message showed once an edit replaced it (NULL: it shows
-- what is waiting), so a reply to it is refused as stale instead of deciding the new arguments.
ALTER TABLE message_refs ADD COLUMN shown TEXT;
