= Information Security Policy

Stadtwerke Birkenau GmbH. Version 3.1, approved by the Management Board on 11 January 2024. Policy owner:
Priya Raman, Information Security Officer.

# 1 Purpose

This policy sets out the principles by which Stadtwerke Birkenau protects the confidentiality, integrity
and availability of its information and systems. As operator of water supply and energy networks, the
company is part of the critical infrastructure and must keep its services running even under attack.

# 2 Scope

The policy applies to all employees, apprentices, contractors and service providers with access to
company information. It covers office IT, the operational technology of the waterworks and the grids,
and cloud services. The Lumen Data Gateway and the meter data management system are in scope.

# 3 Roles and Responsibilities

The Management Board is accountable for information security. The Information Security Officer maintains
this policy, coordinates the handling of security incidents and reports to the Management Board every
quarter. System owners are responsible for the secure operation of their systems. Every employee is
responsible for protecting the information entrusted to them.

# 4 Access Control

Access rights are granted according to the principle of least privilege. Multi-factor authentication is
mandatory for remote access and for all administrative accounts. Passwords for user accounts must have at
least 14 characters; passwords for administrative accounts must have at least 20 characters. Passwords are
not changed periodically, but immediately if there is any suspicion that they have been compromised.

System owners review the access rights of their systems every quarter. Accounts of employees who leave
the company are disabled on their last working day.

# 5 Cryptography

Data in transit must be encrypted with TLS 1.2 or higher. From 2024 onwards, new systems and new
configurations must require TLS 1.3 as the minimum version. Exceptions for legacy devices that do not
support TLS 1.3 must be recorded in the exception register. Keys must be at least RSA 3072 bits or ECDSA
P-256; certificates are issued for a maximum of 398 days.

# 6 Patch and Vulnerability Management

Security updates are installed according to the severity of the vulnerability. Critical vulnerabilities
(CVSS score of 9.0 or higher) must be fixed within 7 days, high-severity vulnerabilities (CVSS 7.0 to 8.9)
within 30 days and all others within 90 days. Updates to operational technology are installed in
coordination with the plant managers during planned maintenance windows.

# 7 Incident Reporting

Every employee must report a security incident or a suspected incident immediately, and at the latest
within one hour of detection, to the IT service desk or to security@stadtwerke-birkenau.example. Outside
office hours, the IT on-call service must be called. The Information Security Officer decides whether the
incident must be reported to the authorities. If personal data are affected, the Data Protection Officer
must also be informed in accordance with the data protection policy.

# 8 Mobile Working

Company information may only be processed on company-managed devices. Laptops and smartphones must use
full-disk encryption, and the screen must lock automatically after five minutes of inactivity. Public
Wi-Fi networks may only be used via the company VPN.

# 9 Exceptions

Exceptions to this policy must be requested in writing, justified and approved by the Information
Security Officer. They are recorded in the exception register, are valid for a maximum of 12 months and
must then be reviewed.

# 10 Compliance and Review

The Information Security Officer reviews this policy at least once a year. Violations of this policy may
lead to disciplinary measures.
