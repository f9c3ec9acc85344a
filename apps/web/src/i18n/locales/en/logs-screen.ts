/** English: the admin console's Logs screen. */
export const logsScreen = {
  logsScreen: {
    tableLabel: 'Audit log',
    searchLabel: 'Search the audit log',
    empty: 'The audit log is empty',
    columns: {
      date: 'Date',
      user: 'User name',
      action: 'Action',
      details: 'Details',
    },
    view: 'Show details of the entry of {{date}}',
    download: 'Download CSV',
    clear: 'Clear entries older than {{days}} days',
    detail: {
      title: 'Audit entry',
      date: 'Date',
      action: 'Action',
      UserName: 'User name',
      AdminName: 'Admin name',
      AgentName: 'Agent name',
      IpAddress: 'IP address',
      AclDescription: 'Knoc',
      Description: 'Description',
      ErrorMessage: 'Error message',
    },
    clearConfirm: {
      title: 'Clear old log entries',
      message: 'Delete every audit log entry older than {{days}} days? This cannot be undone.',
      confirm: 'Clear',
    },
    notify: {
      // The base key satisfies the literal-key check; i18next picks _one/_other by count.
      cleared: '{{count}} log entries deleted',
      cleared_one: '{{count}} log entry deleted',
      cleared_other: '{{count}} log entries deleted',
      downloaded: 'Saved {{fileName}}',
    },
  },
};
