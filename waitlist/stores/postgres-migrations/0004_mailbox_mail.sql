-- Confirmation e-mails per mailbox per UTC day (waitlist/mailbox.ts), for the daily cap: a digest of the mailbox,
-- never its address. The retention drops the days gone by.
CREATE TABLE mailbox_mail (
  counter text NOT NULL,
  day date NOT NULL,
  mails integer NOT NULL,
  PRIMARY KEY (counter, day)
);

CREATE INDEX mailbox_mail_day ON mailbox_mail (day);
