= Digitalisation Programme – Steering Committee Minutes

Meeting of 18 April 2024, 14:00–16:15, Stadtwerke Birkenau, Werkstraße 12, room 2.04 and video
conference. Chair: Dr. Katrin Vogelsang (Managing Director). Minutes: Lena Hoffmann (Programme Office).

# Attendees

- Dr. Katrin Vogelsang, Managing Director (chair)
- Martin Hellwig, Technical Director
- Jonas Albrecht, Head of IT
- Priya Raman, Information Security Officer
- Sabine Krüger, Data Protection Officer
- Tobias Brandt, Head of Metering
- Ayşe Demir, Finance (deputising for Frank Seidel, Head of Finance, who sent apologies)
- Lena Hoffmann, Programme Office (minutes)

# Agenda item 1: Approval of the agenda and of the previous minutes

The agenda was approved as circulated. The minutes of the meeting of 15 February 2024 were approved
without changes.

# Agenda item 2: Status of the smart meter rollout

Tobias Brandt reported that 14,350 of the approximately 31,000 metering points in scope have been equipped
with intelligent metering systems, which corresponds to 46 percent. The rollout is about two weeks behind
plan because the delivery of 2,000 meters was delayed by the manufacturer. To catch up, a third external
installer crew will start work in May.

The committee took note of the report. No decision was required.

# Agenda item 3: Upgrade of the Lumen Data Gateway to version 3.2

Jonas Albrecht presented the upgrade plan. Version 3.2 makes the minimum TLS version configurable and
fixes a memory leak in the master data cache. The upgrade will first be installed on the test cluster in
May; the production cluster will be upgraded in the maintenance window on Saturday, 8 June 2024,
06:00–10:00.

Priya Raman asked that gateway.tls.min_version be set to 1.3 immediately after the upgrade, as required by
the information security policy for new configurations. Jonas Albrecht pointed out that two legacy data
concentrators in the Eichberg substation only support TLS 1.2 and will not be replaced before the fourth
quarter of 2024.

Decision: The committee approves the upgrade of the Lumen Data Gateway to version 3.2 with a budget of
EUR 48,000 for licences and external support. TLS 1.3 becomes the minimum version for all sources except
the two legacy concentrators, for which a time-limited exception is to be documented.

# Agenda item 4: Review of incident INC-2024-031

Jonas Albrecht summarised the incident of 27 February 2024, in which the gateway rejected new meter
connections for 47 minutes after a firmware update caused all devices to reconnect at the same time. The
connection limit has since been raised and the meter vendor has added a randomised reconnect delay. A load
test is still outstanding.

Decision: The committee accepts the post-incident report. The incident will be closed once the load test
has been passed.

# Agenda item 5: Relaunch of the customer portal

Lena Hoffmann reported on the relaunch of the customer portal. The new portal will show daily consumption
values for customers with intelligent metering systems and, with the customer's consent, quarter-hourly
values. Sabine Krüger pointed out that a data protection impact assessment is required because of the
quarter-hourly values and must be completed before go-live.

Decision: The committee confirms go-live of the relaunched customer portal on 1 October 2024, subject to
the data protection impact assessment being completed by 31 July 2024.

# Agenda item 6: Any other business

Martin Hellwig informed the committee that the refurbishment of the Eichberg elevated reservoir has been
awarded and will start in April. There were no further items.

# Action items

| No. | Action | Owner | Due |
| A-24-07 | Run a load test with 1,500 simulated connections on the test cluster | Jonas Albrecht | 24 May 2024 |
| A-24-08 | Document the TLS exception for the legacy concentrators in the Eichberg substation | Priya Raman | 3 May 2024 |
| A-24-09 | Complete the data protection impact assessment for the customer portal relaunch | Sabine Krüger | 31 July 2024 |
| A-24-10 | Update the rollout plan to include the third installer crew | Tobias Brandt | 2 May 2024 |

# Next meeting

The next meeting of the steering committee will take place on 20 June 2024 at 14:00.
