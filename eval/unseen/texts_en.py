"""Texts of the generated (PDF/DOCX) English documents of the unseen answer benchmark, in the
DSL of make_documents_en.py. Written for this benchmark only; all names are fictional."""

KESTREL = r"""
= Kestrel Queue Server 3.4 – Operations Manual

Document KQ-OPS-34, issued by the Platform Operations team of Halloran Digital. Audience: operators who run Kestrel in production. Status: approved, 2 June 2025.

# 1 Introduction

Kestrel Queue Server is the message broker used by all internal services of Halloran Digital for asynchronous work. Producers publish messages to named queues; consumers acknowledge each message after processing it. Kestrel stores messages on local disk in segment files and replicates every queue to two other nodes of the cluster, so a production cluster has at least three nodes.

# 2 Installation

Kestrel is installed from the internal package mirror as the package kestrel-server. The service runs as the user kestrel and reads its configuration from /etc/kestrel/kestrel.conf. Data is kept under /var/lib/kestrel by default. Production nodes need at least 4 CPU cores, 16 GB of memory and a dedicated NVMe volume for the data directory.

Clients connect on port 5680. Nodes of a cluster talk to each other on port 5690, and the HTTP administration interface listens on port 15680.

# 3 Configuration reference

All keys are set in /etc/kestrel/kestrel.conf. The values below are the defaults that apply when a key is not set.

## 3.1 Network

The key listener.port sets the client port; the default is 5680. The key listener.max_connections limits the number of client connections per node; the default is 4096. Connections above the limit are refused with the error KQ-429.

The key listener.idle_timeout closes client connections that sent nothing, not even a heartbeat, for the given time; the default is 300 seconds.

## 3.2 Storage

The key storage.segment_size_mb sets the size at which a segment file is closed and a new one started; the default is 256 MB. The key storage.retention_hours defines how long acknowledged messages are kept on disk for replay; the default is 72 hours. The key storage.fsync controls when data is flushed to disk: "always", "batch" or "never"; the default is "batch", which flushes every 50 milliseconds.

Operators must never set storage.fsync to "never" on production nodes, because a power failure then loses up to the last 30 seconds of messages.

## 3.3 Queues

The key queue.max_length limits the number of unacknowledged messages per queue; the default is 1,000,000. When a queue reaches its limit, publishers receive the error KQ-507 until consumers catch up. The key queue.delivery_attempts sets how often a message is delivered before it is moved to the dead-letter queue; the default is 5. The key queue.visibility_timeout defines how long a delivered message stays invisible to other consumers before it is delivered again; the default is 30 seconds.

## 3.4 Replication

The key replication.factor sets the number of copies of every queue; the default is 3. The key replication.ack_mode decides when a publish is confirmed: "leader" confirms after the leader wrote the message, "quorum" after a majority of replicas wrote it. The default is "quorum".

# 4 Monitoring

Kestrel publishes Prometheus metrics on the administration port under /metrics. Operators are paged when a queue's oldest unacknowledged message is older than 15 minutes, when a node's disk usage exceeds 80 %, or when a replica has been out of sync for more than 5 minutes.

# 5 Routine operations

## 5.1 Rolling restart

Restart one node at a time. Before stopping a node, run kestrelctl drain <node>, which moves the leadership of its queues to other nodes. Wait until kestrelctl status shows all replicas in sync before restarting the next node.

## 5.2 Adding a node

Install the package, set cluster.seeds to the addresses of two existing nodes and start the service. The new node joins the cluster but holds no queues until an operator runs kestrelctl rebalance.

## 5.3 Backups

Kestrel data is not backed up: replication is the protection against the loss of a node. The configuration files are kept in the infrastructure Git repository.

# 6 Troubleshooting

The error KQ-429 means the connection limit was reached; check for clients that open a new connection per message. The error KQ-507 means a queue is full; scale the consumers or raise queue.max_length temporarily. A node that logs "replica lag" repeatedly usually has a slow disk; check the NVMe volume's latency with iostat.

# 7 Contacts

The Platform Operations team owns Kestrel. The on-call rota is published in the operations wiki; escalations go to the platform lead, Yusuf Demir.
"""

FENWICK = r"""
= Fenwick Instruments plc – Annual Report 2024

Fenwick Instruments plc designs and manufactures precision measuring instruments for laboratories, water utilities and the food industry. Headquarters: Fenwick House, Cambridge Science Park. This report covers the financial year 1 January to 31 December 2024.

# Chair's statement

2024 was a year of solid progress. Revenue grew by 9.3 % to GBP 148.6 million, helped by strong demand for our water quality analysers, and adjusted operating profit rose to GBP 21.4 million. The Board proposes a final dividend of 6.8 pence per share, giving a total dividend for the year of 10.2 pence per share (2023: 9.4 pence).

I would like to thank our 1,026 employees for their commitment. After nine years on the Board, I will step down at the annual general meeting on 22 May 2025; the Board has appointed Catherine Oyelaran as my successor. – Sir Anthony Greer, Chair

# Financial review

## Group income statement (summary)

```
GBP million                        2024      2023     Change
Revenue                           148.6     135.9     +9.3 %
Gross profit                       71.3      64.2    +11.1 %
Adjusted operating profit          21.4      18.7    +14.4 %
Operating profit                   17.9      16.1    +11.2 %
Profit before tax                  16.2      15.0     +8.0 %
Basic earnings per share (p)       19.6      18.3     +7.1 %
Net cash at year end               12.8       9.5    +34.7 %
```

Adjusted operating profit excludes the amortisation of acquired intangible assets and restructuring costs of GBP 1.1 million related to the closure of the Derby assembly site.

## Revenue by segment

```
GBP million                        2024      2023
Laboratory instruments             61.2      59.8
Water and environment              54.9      45.3
Food and process                   32.5      30.8
```

The Water and environment segment grew by 21 %, driven by contracts for online nitrate analysers with three UK water companies. Laboratory instruments grew by only 2 % because of weaker demand from university customers.

## Cash flow and capital expenditure

Operating cash flow was GBP 24.1 million. Capital expenditure was GBP 6.3 million, mainly for a new clean-room line at the Cambridge plant. Research and development spending was GBP 11.8 million, equal to 7.9 % of revenue.

# Outlook

The order book at 31 December 2024 stood at GBP 52.7 million, 12 % higher than a year earlier. The Board expects revenue growth in 2025 to be in the mid-single digits. The integration of Sonderby Messtechnik, acquired in January 2025 for GBP 14 million, will add about GBP 9 million of revenue in 2025.

# Principal risks

- Supply of electronic components: the Group holds a safety stock of 16 weeks for critical parts.
- Customer concentration: the five largest customers accounted for 23 % of revenue.
- Currency: around 38 % of revenue is invoiced in euros or US dollars.

# Sustainability

Scope 1 and 2 emissions fell to 2,140 tonnes CO2e in 2024 from 2,610 tonnes in 2023, mainly because the Cambridge plant switched to a renewable electricity tariff in April 2024. The Group aims for net zero in its own operations by 2035.
"""

TENDER = r"""
= Invitation to Tender: School Catering Services 2026–2030

Contracting authority: Ashby District Council, Education and Children's Services, Civic Centre, Ashby AB1 2CD. Tender reference: ADC/EDU/2025/041. Procedure: open procedure under the Procurement Act 2023.

# 1 Scope of the contract

The Council invites tenders for the provision of school meals at 27 primary schools and 4 special schools in the Ashby district. About 6,800 meals are served on each school day during 190 school days a year. The contract runs for four years from 1 April 2026, with an option to extend by up to two further years.

The estimated total contract value over four years is GBP 11.2 million excluding VAT.

The contract is divided into two lots. Lot 1 covers the 18 schools in the North area; Lot 2 covers the 13 schools in the South area. Bidders may tender for one or both lots, but no bidder will be awarded both lots unless it offers the best value in each.

# 2 Key dates

| Event | Date |
|---|---|
| Publication of tender | 6 October 2025 |
| Site visits (optional) | 20–24 October 2025 |
| Deadline for clarification questions | 7 November 2025, 12:00 |
| Tender submission deadline | 21 November 2025, 14:00 |
| Presentations by shortlisted bidders | 8–10 December 2025 |
| Intended contract award | 16 January 2026 |
| Service start | 1 April 2026 |

Tenders received after the submission deadline will not be considered. Tenders must be submitted through the Council's e-tendering portal; submissions by e-mail or post are not accepted.

# 3 Mandatory requirements

- Meals must meet the School Food Standards in full.
- At least 30 % of the ingredients by value must come from producers within 50 miles of Ashby.
- All meat must be farm-assured to Red Tractor standard or equivalent; all eggs must be free range.
- The contractor must offer a vegetarian option every day and cater for medically verified special diets.
- Kitchen staff must hold at least a Level 2 Food Hygiene certificate.
- The contractor must pay all staff working on the contract at least the Real Living Wage.
- Minimum annual turnover of GBP 5 million for one lot or GBP 9 million for both lots.
- Employer's liability insurance of at least GBP 10 million and public liability insurance of at least GBP 5 million.

# 4 Award criteria

| Criterion | Weighting |
|---|---|
| Price | 40 % |
| Quality of food and menus | 25 % |
| Service delivery and staffing | 15 % |
| Social value | 10 % |
| Environmental sustainability | 10 % |

The price per meal must be stated for a standard primary meal and a special-school meal separately. Quality will be assessed from the written response, the sample menus and a tasting panel of pupils and parents held during the presentations.

# 5 TUPE

Around 140 catering staff currently employed by the incumbent contractor, Meridian School Foods Ltd, are expected to transfer to the new contractor under the TUPE Regulations. Anonymised employee information is available in the data room.

# 6 Contact

All questions must be sent through the portal's messaging function. The procurement officer for this tender is Rachel Donnelly.
"""

SOP = r"""
= Standard Operating Procedure SOP-LAB-014: Storage of Hazardous Chemicals

Caledon Institute for Applied Chemistry, Building C laboratories. Version 4, effective 1 September 2025. Author: Dr Fiona MacAulay, Laboratory Safety Officer. Approved by: Prof. Hamish Drummond, Head of Department.

# 1 Purpose

This procedure describes how hazardous chemicals are stored in the Building C laboratories so that incompatible substances are kept apart, quantities stay within the limits of the fire risk assessment, and stock records are accurate.

# 2 Responsibilities

Every research group leader is responsible for the chemicals held by the group. Each laboratory has a named chemical custodian who keeps the inventory up to date. The Laboratory Safety Officer audits all storage areas twice a year, in March and September.

# 3 Segregation

Chemicals are stored by hazard class, not in alphabetical order. The following groups must be kept in separate cabinets or separated by at least 3 metres: flammable liquids; oxidisers; acids; bases; toxic substances; water-reactive substances.

- Nitric acid is stored separately from all other acids and from organic substances.
- Water-reactive substances such as sodium metal are stored in a dry cabinet away from any sink or water pipe.
- Cyanides must never be stored near acids.

# 4 Flammable liquids

Flammable liquids are stored in the yellow safety cabinets conforming to EN 14470-1 with a fire resistance of 90 minutes. The total quantity of flammable liquids outside the cabinets in one laboratory must not exceed 10 litres, and no single container on an open bench may hold more than 1 litre. Bulk solvent above 25 litres is kept in the external solvent store, not in the laboratories.

# 5 Refrigerated storage

Only refrigerators marked "spark-free" or "laboratory grade" may be used for flammable substances. Domestic refrigerators are forbidden for chemicals. Refrigerator temperatures are checked and logged every Monday.

# 6 Labelling and records

Every container must carry the GHS label of the supplier, the date of receipt and the date of first opening. Peroxide-forming solvents such as diethyl ether and tetrahydrofuran are tested for peroxides every 3 months after opening and disposed of 12 months after opening at the latest. The chemical inventory in the ChemTrack system is updated within 2 working days of receipt or disposal.

# 7 Spills and emergencies

Spill kits are kept at the entrance of every laboratory. Spills of more than 500 ml, or of any highly toxic substance, must be reported immediately to the Laboratory Safety Officer on extension 4417. In case of fire leave the building and call the emergency number 2222.

# 8 Review

This procedure is reviewed every two years or after any incident involving chemical storage.
"""

AUP = r"""
= Brightwater Logistics – IT Acceptable Use and Security Policy

Policy number IT-POL-002, version 5.0. Owner: Chief Information Security Officer, Kwame Asante. Approved by the Executive Board on 17 January 2025. Applies from 1 February 2025.

# 1 Scope

This policy applies to all employees, temporary staff and contractors of Brightwater Logistics who use the company's IT systems, devices or data, in depots, offices or remotely.

# 2 Accounts and passwords

Every user receives a personal account. Accounts must not be shared. Passwords must be at least 14 characters long; passphrases of four or more words are encouraged. Passwords are not changed on a fixed schedule, but must be changed at once if there is any suspicion that they are known to someone else.

Multi-factor authentication (MFA) is required for e-mail, the VPN, the transport management system and all cloud services. Approved second factors are the Microsoft Authenticator app and FIDO2 security keys; SMS codes are not allowed.

Accounts are locked after 10 failed sign-in attempts within 15 minutes. Accounts of leavers are disabled by the end of their last working day.

# 3 Devices

Only company-managed laptops and phones may be used to access company data. Personal devices may be used only for webmail and Teams through the company's mobile app protection policy. Laptops must lock automatically after 5 minutes of inactivity. USB storage devices are blocked on all company laptops; exceptions require approval by the IT Security team for a maximum of 30 days.

# 4 E-mail and internet

Company e-mail may be used for limited personal purposes as long as it does not interfere with work. Auto-forwarding of company e-mail to external addresses is blocked. Users must report suspicious e-mails with the "Report phishing" button. Access to gambling, adult and file-sharing sites is blocked by the web filter.

# 5 Data handling

Company data is classified as Public, Internal, Confidential or Restricted. Confidential and Restricted data may only be stored in the approved SharePoint sites and the transport management system. Restricted data must not be sent by e-mail outside the company without encryption. Customer data must not be uploaded to public AI tools.

# 6 Incident reporting

Users must report security incidents, lost devices and suspected phishing to the IT Service Desk immediately, and in any case within 2 hours, by phone on extension 5000 or through the self-service portal.

# 7 Monitoring

Brightwater Logistics monitors the use of its systems to protect them from misuse, in line with data protection law. Monitoring data is kept for 90 days unless it is needed for an investigation.

# 8 Breaches of this policy

Breaches may lead to disciplinary action up to and including dismissal, and contractors may have their access withdrawn. The CISO reviews this policy every year.
"""

HEATPUMP = r"""
= Norrvik AirFlow HP Series – Air-to-Water Heat Pumps: Technical Datasheet

Norrvik Värme AB, Jönköping. Datasheet NV-HP-2025-EN, issued April 2025. All values measured according to EN 14511 unless stated otherwise.

# Product description

The AirFlow HP series are monobloc air-to-water heat pumps for space heating and domestic hot water in single-family houses. All models use the natural refrigerant R290 (propane) and reach flow temperatures of up to 75 °C. The inverter-driven compressor adjusts the output continuously between 25 % and 100 % of the nominal capacity.

# Technical data

| Parameter | HP-6 | HP-9 | HP-12 |
| Nominal heating capacity at A7/W35 | 6.1 kW | 9.0 kW | 12.2 kW |
| COP at A7/W35 | 5.05 | 4.92 | 4.78 |
| COP at A2/W35 | 4.10 | 3.96 | 3.88 |
| SCOP, average climate, W35 | 5.10 | 5.02 | 4.95 |
| Energy class at W35 | A+++ | A+++ | A+++ |
| Refrigerant charge (R290) | 0.9 kg | 1.3 kg | 1.6 kg |
| Sound power level outdoor unit | 53 dB(A) | 55 dB(A) | 58 dB(A) |
| Maximum flow temperature | 75 °C | 75 °C | 75 °C |
| Minimum outdoor temperature | -25 °C | -25 °C | -25 °C |
| Power supply | 230 V, 1-phase | 230 V, 1-phase | 400 V, 3-phase |
| Dimensions (W x H x D) | 1,100 x 780 x 450 mm | 1,250 x 900 x 480 mm | 1,250 x 1,250 x 480 mm |
| Weight | 98 kg | 121 kg | 146 kg |

# Installation notes

The outdoor unit must be installed at least 1 metre from windows, doors and drains because of the flammable refrigerant. A buffer tank is not required if the heating system holds at least 20 litres of water per kW of capacity. The heat pump is controlled by the Norrvik Connect controller, which is included, and can be monitored via the Norrvik Home app.

# Warranty

Norrvik gives a 5-year warranty on all parts and a 7-year warranty on the compressor if the heat pump is registered online within 3 months of installation and serviced every year by an authorised installer.
"""

AUDIT = r"""
= Elmsworth College – Audit and Risk Committee: Minutes of the meeting of 20 February 2025

Held in the Board Room, Elmsworth College, Station Road campus, from 4.00 pm to 5.45 pm.

Members present: Richard Ashdown (Chair), Dr Naomi Kirkland, Simon Prewett, Leila Haddad. In attendance: Paul Whitmore (Principal), Joanne Cardew (Vice Principal Finance), Martin Sayle (internal audit, Beacon Assurance LLP), Chloe Vance (external audit, Greyfield & Partners), Ruth Ellery (Clerk to the Corporation).

# 1 Apologies and declarations

There were no apologies; all four members were present and the meeting was quorate. No interests were declared.

# 2 Minutes and matters arising

The minutes of the meeting of 21 November 2024 were approved. Of the 9 audit recommendations open at the last meeting, 6 have been implemented and 3 are in progress.

# 3 Internal audit: cyber security review

Martin Sayle presented the internal audit report on cyber security. The overall assurance level was "moderate". The report made two high-priority recommendations: the college should test its backup restoration at least every six months, and it should remove 37 dormant user accounts with administrator rights. Management accepted both recommendations.

The Committee resolved to accept the cyber security report and asked management to implement the two high-priority recommendations by 30 April 2025.

# 4 Internal audit: student data returns

The review of student data returns gave "substantial" assurance with no high-priority findings. The Committee noted the report.

# 5 Risk register

Joanne Cardew presented the strategic risk register. The highest-rated risk remains the failure to recruit enough students aged 16 to 18, scored 20 out of 25. A new risk on the condition of the Station Road roof was added with a score of 16. The Committee asked that the roof risk be owned by the Director of Estates, Graham Bolt.

# 6 External audit plan 2024/25

Chloe Vance presented the external audit plan for the year ending 31 July 2025. The audit fee will be GBP 48,500 plus VAT, an increase of GBP 3,200 on the previous year. Materiality is set at GBP 610,000.

The Committee resolved to recommend the external audit plan and fee to the Corporation for approval.

# 7 Fraud and whistleblowing

No cases of fraud or whistleblowing were reported since the last meeting. The Committee approved the revised Anti-Fraud and Bribery Policy without amendment.

# 8 Actions

- Joanne Cardew to report progress on the cyber security recommendations at the June meeting.
- Graham Bolt to present a condition survey of the Station Road roof by 31 May 2025.
- Ruth Ellery to circulate the revised Anti-Fraud and Bribery Policy to all staff by 7 March 2025.
- The Committee to hold its annual private meeting with the auditors before the June meeting.

# 9 Date of next meeting

The next meeting will be held on 12 June 2025 at 4.00 pm.
"""

SLA = r"""
= Cobaltline Hosting – Service Level Agreement for Managed Cloud Servers

Schedule 2 to the Master Services Agreement between Cobaltline Hosting Ltd and the Customer. Version 2025.1, valid from 1 March 2025.

# 1 Service availability

Cobaltline guarantees the monthly availability of managed cloud servers according to the service tier chosen by the Customer. Availability is measured by Cobaltline's monitoring system from two independent locations every 60 seconds. A server counts as unavailable when it does not respond to the agreed health check from both locations.

| Service tier | Monthly availability | Maximum downtime per month | Support hours |
| Essential | 99.5 % | 3 hours 39 minutes | Monday to Friday, 08:00–18:00 |
| Business | 99.9 % | 43 minutes | 24 x 7 |
| Critical | 99.95 % | 21 minutes | 24 x 7 with named engineer |

# 2 Exclusions

Downtime is not counted if it is caused by planned maintenance announced at least 5 business days in advance, by the Customer's own software or configuration, by attacks that the Customer did not buy protection against, or by force majeure. Planned maintenance takes place on Sundays between 01:00 and 05:00 UK time.

# 3 Incident response

Incidents are classified by priority. A P1 incident is a complete loss of service; a P2 incident is a serious degradation; a P3 incident is a minor fault; a P4 is a request or question.

| Priority | Response time (Business and Critical) | Response time (Essential) | Target resolution |
| P1 | 15 minutes | 1 hour | 4 hours |
| P2 | 30 minutes | 4 business hours | 8 hours |
| P3 | 4 business hours | 8 business hours | 3 business days |
| P4 | 1 business day | 2 business days | not applicable |

# 4 Service credits

If the monthly availability falls below the guaranteed level, the Customer receives a service credit on the monthly fee of the affected servers: 10 % for each full 0.1 percentage point below the guarantee, up to a maximum of 50 % of the monthly fee. Credits must be claimed within 30 days of the end of the month. Service credits are the Customer's sole remedy for missed availability, except where availability is below 95 % in three consecutive months, in which case the Customer may terminate the affected services without penalty.

# 5 Backups

Managed cloud servers are backed up daily. Backups are kept for 30 days on the Business and Critical tiers and for 14 days on the Essential tier. Restores requested by the Customer are carried out within 4 hours on the Critical tier.

# 6 Reporting

Cobaltline sends a monthly service report by the 5th business day of the following month, with the availability achieved, all incidents and the credits due.

# 7 Contacts

Service desk: +44 20 3555 0199, servicedesk@cobaltline.example. Escalation: Service Delivery Manager, Bethany Coles.
"""

DOCS = [
    {"name": "kestrel_queue_operations_manual.pdf", "src": KESTREL, "date": (2025, 6, 2),
     "author": "Halloran Digital Platform Operations", "footer": "KQ-OPS-34 Kestrel Queue Server"},
    {"name": "fenwick_annual_report_2024.pdf", "src": FENWICK, "date": (2025, 3, 27),
     "author": "Fenwick Instruments plc", "footer": "Fenwick Instruments plc Annual Report 2024"},
    {"name": "tender_school_catering_2026.pdf", "src": TENDER, "date": (2025, 10, 6),
     "author": "Ashby District Council", "footer": "ADC/EDU/2025/041",
     "col_widths": (110, 60)},
    {"name": "chemical_storage_sop.pdf", "src": SOP, "date": (2025, 8, 20),
     "author": "Caledon Institute for Applied Chemistry", "footer": "SOP-LAB-014 version 4"},
    {"name": "acceptable_use_policy.docx", "src": AUP, "date": (2025, 1, 17),
     "author": "Kwame Asante"},
    {"name": "norrvik_heat_pump_datasheet.docx", "src": HEATPUMP, "date": (2025, 4, 10),
     "author": "Norrvik Värme AB"},
    {"name": "audit_committee_minutes_2025-02-20.docx", "src": AUDIT, "date": (2025, 2, 27),
     "author": "Ruth Ellery"},
    {"name": "hosting_service_level_agreement.docx", "src": SLA, "date": (2025, 2, 14),
     "author": "Cobaltline Hosting Ltd"},
]
